// A group of one process, and the agreement helpers every group shares.
#include "comm/rank_group.hpp"

namespace pipecheck {

namespace {

class SoloGroup final : public RankGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  void broadcast(void*, std::size_t) override {}
  std::vector<std::string> all_gather(const std::string& text) override { return {text}; }
  double sum(double value) override { return value; }
};

}  // namespace

std::unique_ptr<RankGroup> solo_rank_group() { return std::make_unique<SoloGroup>(); }

std::string agree_on_error(RankGroup& group, const std::string& local_error) {
  if (group.size() == 1) return local_error;
  const std::vector<std::string> errors = group.all_gather(local_error);
  for (std::size_t rank = 0; rank < errors.size(); ++rank) {
    if (!errors[rank].empty()) return "rank " + std::to_string(rank) + ": " + errors[rank];
  }
  return "";
}

double rank_average(RankGroup& group, double value) {
  return group.size() <= 1 ? value : group.sum(value) / group.size();
}

}  // namespace pipecheck
