// What the ranks of a job agree on: the first error any rank reports, the mean time. A fake
// group of several ranks stands in for MPI (the real one is run by comm_probe_test's mpirun case).
#include "comm/rank_group.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

// Rank 0 of a job whose other ranks' answers are scripted.
class ScriptedGroup final : public RankGroup {
 public:
  ScriptedGroup(std::vector<std::string> others_text, double others_sum)
      : others_text_(std::move(others_text)), others_sum_(others_sum) {}
  int rank() const override { return 0; }
  int size() const override { return static_cast<int>(others_text_.size()) + 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return size(); }
  void broadcast(void*, std::size_t) override {}
  std::vector<std::string> all_gather(const std::string& text) override {
    std::vector<std::string> all = {text};
    for (const auto& other : others_text_) all.push_back(other);
    return all;
  }
  double sum(double value) override { return value + others_sum_; }

 private:
  std::vector<std::string> others_text_;
  double others_sum_;
};

TEST(CommRankGroup, AloneEveryAnswerIsOwn) {
  const auto solo = solo_rank_group();
  EXPECT_EQ(solo->rank(), 0);
  EXPECT_EQ(solo->size(), 1);
  EXPECT_EQ(solo->all_gather("x"), (std::vector<std::string>{"x"}));
  EXPECT_EQ(agree_on_error(*solo, ""), "");
  EXPECT_EQ(agree_on_error(*solo, "cudaMalloc failed"), "cudaMalloc failed");
  EXPECT_DOUBLE_EQ(rank_average(*solo, 2.5), 2.5);
}

TEST(CommRankGroup, TheFirstRankWithAnErrorSpeaksForAll) {
  ScriptedGroup quiet({"", ""}, 0);
  EXPECT_EQ(agree_on_error(quiet, ""), "");
  ScriptedGroup failing({"", "ncclCommInitRank failed", "later error"}, 0);
  EXPECT_EQ(agree_on_error(failing, ""), "rank 2: ncclCommInitRank failed");
  EXPECT_EQ(agree_on_error(failing, "own error"), "rank 0: own error");
}

TEST(CommRankGroup, TimeIsTheMeanOverRanks) {
  ScriptedGroup group({"", "", ""}, 3.0);  // three other ranks took 1 s each
  EXPECT_DOUBLE_EQ(rank_average(group, 2.0), 5.0 / 4);
}

}  // namespace
}  // namespace pipecheck
