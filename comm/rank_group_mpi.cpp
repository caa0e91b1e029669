// The ranks of an MPI job (mpirun, srun): MPI_COMM_WORLD, and the ranks sharing this host from
// MPI_Comm_split_type. Only the id broadcast and small gathers go through MPI; NCCL moves the data.
// The C API only: the deprecated C++ bindings of Open MPI and MPICH are not wanted (and warn).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "comm/rank_group.hpp"
#include "core/errors.hpp"

namespace pipecheck {

namespace {

class MpiGroup final : public RankGroup {
 public:
  MpiGroup(int* argc, char*** argv) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host_);
    MPI_Comm_rank(host_, &local_rank_);
    MPI_Comm_size(host_, &local_size_);
  }
  ~MpiGroup() override {
    MPI_Comm_free(&host_);
    MPI_Finalize();
  }
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  void broadcast(void* data, std::size_t bytes) override {
    MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD);
  }

  std::vector<std::string> all_gather(const std::string& text) override {
    int length = static_cast<int>(text.size());
    std::vector<int> lengths(static_cast<std::size_t>(size_));
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                   MPI_COMM_WORLD);
    std::vector<std::string> texts;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      texts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    }
    return texts;
  }

  double sum(double value) override {
    double total = 0;
    MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return total;
  }

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  MPI_Comm host_ = MPI_COMM_NULL;
};

}  // namespace

std::unique_ptr<RankGroup> open_rank_group(int* argc, char*** argv, const LaunchInfo& launch) {
  if (launch.world_size <= 1) return solo_rank_group();
  auto group = std::make_unique<MpiGroup>(argc, argv);
  if (group->size() != launch.world_size) {
    // Each task would otherwise be a job of one, driving every GPU of its host at once.
    throw RunError(launch.launcher + " started " + std::to_string(launch.world_size) +
                   " ranks but MPI sees a job of " + std::to_string(group->size()) +
                   ": the MPI library does not match the launcher (with srun, pass --mpi=pmix or "
                   "--mpi=pmi2)");
  }
  return group;
}

}  // namespace pipecheck
