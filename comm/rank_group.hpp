// The processes of one pipecheck-comm job and the little they tell each other: MPI carries only
// the NCCL unique id, each rank's facts at start, and each sample's time, error and wrong count.
// A single process is a group of one. The MPI seam: rank_group_mpi.cpp with MPI,
// rank_group_nompi.cpp without; both only in the probe executable (MPI is linked there alone).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "comm/comm_launch.hpp"

namespace pipecheck {

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank's place among the ranks of its host, and how many there are.
  virtual int local_rank() const = 0;
  virtual int local_size() const = 0;
  // Rank 0's `bytes` to every rank.
  virtual void broadcast(void* data, std::size_t bytes) = 0;
  // Every rank's text, in rank order, on every rank.
  virtual std::vector<std::string> all_gather(const std::string& text) = 0;
  // The sum of every rank's value, on every rank.
  virtual double sum(double value) = 0;
};

// One process alone.
std::unique_ptr<RankGroup> solo_rank_group();

// The probe's group: MPI when `launch` says several ranks, a single process otherwise. Calls
// MPI_Init only for several ranks, so a plain run needs no MPI runtime. Throws RunError when
// several ranks were launched but this build has no MPI (saying how to build it), or when MPI
// sees another job size than the launcher (srun without --mpi=pmix). MPI_Finalize runs when
// the group is destroyed.
std::unique_ptr<RankGroup> open_rank_group(int* argc, char*** argv, const LaunchInfo& launch);

// The first error any rank reports ("" when none), as "rank R: error" in a group of several,
// the same on every rank, so that all ranks stop a case together and NCCL never waits for a
// rank that left.
std::string agree_on_error(RankGroup& group, const std::string& local_error);

// The mean of every rank's value (nccl-tests' default -a 1 averages the time over ranks).
double rank_average(RankGroup& group, double value);

}  // namespace pipecheck
