// The multi-GPU sawtooth: one GPU whose dips lead the others'.
#include <gtest/gtest.h>

#include "watch/gpu_sawtooth.hpp"

namespace pipecheck {
namespace {

std::vector<double> times(int n) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(i);
  return t;
}

// Dips of 2 samples every `period`, starting at `offset` within the period.
std::vector<double> dips(int n, int period, int offset) {
  std::vector<double> util;
  for (int i = 0; i < n; ++i) {
    const int phase = i % period;
    util.push_back(phase == offset || phase == offset + 1 ? 10 : 95);
  }
  return util;
}

TEST(WatchSawtooth, FindsTheGpuThatDipsFirst) {
  const int n = 60;
  const std::vector<GpuSeries> gpus = {{0, dips(n, 6, 4)}, {1, dips(n, 6, 4)}, {2, dips(n, 6, 3)}, {3, dips(n, 6, 4)}};
  const Sawtooth s = find_leading_dipper(times(n), gpus);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.leader, 2);
  EXPECT_GE(s.events, 9);
  EXPECT_EQ(s.led, s.events);
  EXPECT_DOUBLE_EQ(s.mean_lead_s, 1.0);
}

TEST(WatchSawtooth, DipsTogetherHaveNoLeader) {
  const int n = 60;
  const std::vector<GpuSeries> gpus = {{0, dips(n, 6, 4)}, {1, dips(n, 6, 4)}};
  const Sawtooth s = find_leading_dipper(times(n), gpus);
  EXPECT_GE(s.events, 9);
  EXPECT_EQ(s.led, 0);
  EXPECT_FALSE(s.found);
}

TEST(WatchSawtooth, OneGpuOrIdleGpusAreNotASawtooth) {
  const int n = 60;
  EXPECT_FALSE(find_leading_dipper(times(n), {{0, dips(n, 6, 3)}}).found);
  std::vector<GpuSeries> idle = {{0, std::vector<double>(n, 2)}, {1, std::vector<double>(n, 3)}};
  EXPECT_EQ(find_leading_dipper(times(n), idle).events, 0);
}

TEST(WatchSawtooth, AlternatingLeadersAreNotOneStraggler) {
  const int n = 60;
  std::vector<double> a(n, 95), b(n, 95);
  for (int start = 3, k = 0; start + 2 < n; start += 6, ++k) {
    std::vector<double>& first = k % 2 ? a : b;
    std::vector<double>& second = k % 2 ? b : a;
    first[start] = first[start + 1] = 10;
    second[start + 1] = second[start + 2] = 10;
  }
  const Sawtooth s = find_leading_dipper(times(n), {{0, a}, {1, b}});
  EXPECT_GE(s.events, 9);
  EXPECT_FALSE(s.found);
}

}  // namespace
}  // namespace pipecheck
