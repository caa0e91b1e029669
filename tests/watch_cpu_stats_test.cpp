// Per-core CPU utilization and iowait from /proc/stat, on recorded texts under a fake root.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/watch_test_support.hpp"
#include "watch/cpu_stats.hpp"

namespace pipecheck {
namespace {

TEST(WatchCpuStats, ParsesTheAggregateAndEveryCore) {
  const auto times = parse_proc_stat_cores(
      "cpu  300 0 100 500 100 0 0 0 0 0\ncpu0 200 0 50 200 50 0 0 0 0 0\ncpu1 100 0 50 300 50 0 0 0 0 0\n"
      "intr 1 2 3\nctxt 99\n");
  ASSERT_TRUE(times);
  EXPECT_EQ(times->all.total, 1000u);
  EXPECT_EQ(times->all.busy, 400u);
  EXPECT_EQ(times->all.iowait, 100u);
  ASSERT_EQ(times->cores.size(), 2u);
  EXPECT_EQ(times->cores[0].busy, 250u);
  EXPECT_FALSE(parse_proc_stat_cores("intr 1 2\n"));
}

TEST(WatchCpuStats, RatesBetweenTwoReadings) {
  const auto root = watch_test::scratch("cpu");
  std::filesystem::create_directories(root / "proc");
  auto write_stat = [&](const std::string& text) { std::ofstream(root / "proc" / "stat") << text; };
  CpuStatsSampler sampler{SysfsRoot(root)};
  write_stat("cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\n");
  EXPECT_FALSE(sampler.sample().cpu_pct) << "the first reading only primes";
  // cpu0 busy all 100 jiffies; cpu1 idle 50, iowait 50.
  write_stat("cpu  100 0 0 50 50 0 0 0 0 0\ncpu0 100 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 50 50 0 0 0 0 0\n");
  const HostWatch host = sampler.sample();
  ASSERT_TRUE(host.cpu_pct);
  EXPECT_DOUBLE_EQ(*host.cpu_pct, 50.0);
  EXPECT_DOUBLE_EQ(*host.iowait_pct, 25.0);
  ASSERT_EQ(host.core_pct.size(), 2u);
  EXPECT_DOUBLE_EQ(host.core_pct[0], 100.0);
  EXPECT_DOUBLE_EQ(host.core_pct[1], 0.0);
  std::filesystem::remove_all(root);
}

TEST(WatchCpuStats, LiveMachineReportsEveryCore) {
  CpuStatsSampler sampler{SysfsRoot("/")};
  sampler.sample();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const HostWatch host = sampler.sample();
  ASSERT_TRUE(host.cpu_pct);
  EXPECT_GE(host.core_pct.size(), 1u);
}

}  // namespace
}  // namespace pipecheck
