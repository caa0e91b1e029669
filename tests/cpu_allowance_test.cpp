// CPU allowance: the cgroup quota (v1 and v2, the tightest up the tree), affinity, and the
// usable count the probes' default thread counts follow.
#include "core/cpu_allowance.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

const std::string kData = std::string(PIPECHECK_TEST_DATA) + "/cpu_allowance/";

TEST(CpuAllowance, CgroupV2TightestQuotaUpTheTree) {
  const auto allowance = read_cpu_allowance(SysfsRoot(kData + "v2_quota"), 128);
  EXPECT_EQ(allowance.online, 128);
  ASSERT_TRUE(allowance.quota_cpus.has_value());
  EXPECT_DOUBLE_EQ(*allowance.quota_cpus, 3.5);
  EXPECT_EQ(allowance.usable(), 4);
  EXPECT_TRUE(allowance.limited());
  EXPECT_EQ(allowance.describe(), "4 of 128 CPUs: cgroup quota 3.5 CPUs (/sys/fs/cgroup/job/step/cpu.max = 350000 100000)");
}

TEST(CpuAllowance, CgroupV1QuotaOfTheCpuController) {
  const auto allowance = read_cpu_allowance(SysfsRoot(kData + "v1_quota"), 64);
  ASSERT_TRUE(allowance.quota_cpus.has_value());
  EXPECT_DOUBLE_EQ(*allowance.quota_cpus, 4.0);
  EXPECT_EQ(allowance.usable(), 4);
  EXPECT_NE(allowance.quota_source.find("/sys/fs/cgroup/cpu,cpuacct/slurm/uid_0/job_7/cpu.cfs_quota_us = 400000"),
            std::string::npos)
      << allowance.quota_source;
}

TEST(CpuAllowance, AffinityNarrowerThanTheQuotaWins) {
  const auto allowance = read_cpu_allowance(SysfsRoot(kData + "v1_quota"), 2);
  EXPECT_EQ(allowance.usable(), 2);
  EXPECT_EQ(allowance.describe().rfind("2 of 64 CPUs: affinity 2, cgroup quota 4.0 CPUs", 0), 0u)
      << allowance.describe();
}

TEST(CpuAllowance, NoQuotaIsTheWholeMachine) {
  const auto allowance = read_cpu_allowance(SysfsRoot(kData + "unlimited"), 2);
  EXPECT_FALSE(allowance.quota_cpus.has_value());
  EXPECT_EQ(allowance.usable(), 2);
  EXPECT_FALSE(allowance.limited());
  EXPECT_EQ(allowance.describe(), "2 of 2 CPUs");
}

TEST(CpuAllowance, MissingFilesLeaveItUnknownButUsable) {
  const auto allowance = read_cpu_allowance(SysfsRoot(kData + "nowhere"), 0);
  EXPECT_EQ(allowance.online, 0);
  EXPECT_EQ(allowance.usable(), 1);
  EXPECT_EQ(allowance.describe(), "1 of ? CPUs");
}

TEST(CpuAllowance, CpuLists) {
  EXPECT_EQ(count_cpu_list("0-3,8,10-11\n"), 7);
  EXPECT_EQ(count_cpu_list("0"), 1);
  EXPECT_FALSE(count_cpu_list("").has_value());
  EXPECT_FALSE(count_cpu_list("3-1").has_value());
  EXPECT_FALSE(count_cpu_list("a-b").has_value());
}

TEST(CpuAllowance, LiveProcessHasAtLeastOneUsableCpu) {
  const auto allowance = live_cpu_allowance();
  EXPECT_GE(allowance.usable(), 1);
  EXPECT_GE(allowance.affinity, 1);
  EXPECT_LE(allowance.usable(), allowance.affinity);
}

}  // namespace
}  // namespace pipecheck
