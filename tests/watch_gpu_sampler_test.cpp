// The watch's GPU sampler degrades without NVML: no GPU rows, a note saying why, never a crash.
// With a GPU and its driver, it reads every GPU (device tier; skipped elsewhere).
#include <gtest/gtest.h>

#include "watch/gpu_watch_sampler.hpp"

#include <functional>
#include <set>
#include <vector>

namespace pipecheck {
namespace {

TEST(WatchGpuSampler, NoNvmlMeansEmptyGpuColumns) {
  const NvmlLibrary nvml("libnvidia-ml-does-not-exist.so.1");
  GpuWatchSampler sampler(&nvml);
  EXPECT_FALSE(sampler.available());
  EXPECT_EQ(sampler.why_unavailable().rfind("no NVML: GPU columns empty (", 0), 0u) << sampler.why_unavailable();
  EXPECT_TRUE(sampler.sample({1}).empty());
  EXPECT_TRUE(sampler.describe().empty());
}

TEST(WatchGpuSampler, SamplingOffSaysSo) {
  GpuWatchSampler sampler(nullptr);
  EXPECT_FALSE(sampler.available());
  EXPECT_NE(sampler.why_unavailable().find("GPU columns empty"), std::string::npos);
}

TEST(WatchGpuSampler, PcieThroughputIsKiBPerSecondShownInMBPerSecond) {
  // NVML's KB/s are 1024 bytes (nvidia-smi dmon shows 1048576 KB/s as 1024 MB/s): 1 GiB/s.
  EXPECT_DOUBLE_EQ(nvml_pcie_kbs_to_mbs(1048576), 1073.741824);
  EXPECT_DOUBLE_EQ(nvml_pcie_kbs_to_mbs(0), 0);
  EXPECT_DOUBLE_EQ(nvml_pcie_kbs_to_mbs(4000000000u), 4096000.0);  // no unsigned overflow
}

// A fake nvmlDeviceGetComputeRunningProcesses: `pids` running; with too little room it fills
// nothing but garbage the caller must not read, and says how many there are.
struct FakeProcessList {
  std::vector<unsigned> pids;
  int calls = 0;
  nvml::Return operator()(unsigned* count, NvmlProcessInfo* infos) {
    ++calls;
    for (unsigned i = 0; i < *count; ++i) infos[i] = {999999, 0, 0, 0};  // what a reader must not take
    if (*count < pids.size()) {
      *count = static_cast<unsigned>(pids.size());
      return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
    }
    for (unsigned i = 0; i < pids.size(); ++i) infos[i] = {pids[i], 1 << 20, 0, 0};
    *count = static_cast<unsigned>(pids.size());
    return nvml::success;
  }
};

TEST(WatchGpuSampler, ReadsOnlyTheProcessEntriesNvmlFilled) {
  FakeProcessList few{{41, 42}};
  EXPECT_EQ(running_process_pids(std::ref(few)), (std::set<unsigned>{41, 42}));  // not the unfilled rest
  EXPECT_EQ(few.calls, 1);
  // More processes than the first room: asked again with room for all, none lost or invented.
  FakeProcessList many;
  for (unsigned pid = 1000; pid < 1300; ++pid) many.pids.push_back(pid);
  const auto pids = running_process_pids(std::ref(many));
  ASSERT_TRUE(pids);
  EXPECT_EQ(pids->size(), 300u);
  EXPECT_EQ(pids->count(999999), 0u);
  EXPECT_EQ(many.calls, 2);
  FakeProcessList none;
  EXPECT_EQ(running_process_pids(std::ref(none)), std::set<unsigned>{});
  // NVML that cannot list: unknown, not "no process".
  EXPECT_FALSE(running_process_pids([](unsigned*, NvmlProcessInfo*) { return nvml::error_not_supported; }));
}

TEST(WatchGpuSampler, ReadsEveryGpuWhenThereIsOne) {
  const NvmlLibrary nvml;
  if (!nvml.ok()) GTEST_SKIP() << "no NVML here: " << nvml.error();
  GpuWatchSampler sampler(&nvml);
  if (!sampler.available()) GTEST_SKIP() << sampler.why_unavailable();
  const auto gpus = sampler.sample({});
  ASSERT_FALSE(gpus.empty());
  for (const auto& gpu : gpus) {
    EXPECT_TRUE(gpu.util_pct) << gpu.bus_id;
    EXPECT_TRUE(gpu.power_w) << gpu.bus_id;
    EXPECT_TRUE(gpu.power_limit_w) << gpu.bus_id;
    EXPECT_TRUE(gpu.mem_used_mib) << gpu.bus_id;
    EXPECT_TRUE(gpu.job) << "no job pid given: every GPU counts";
  }
}

}  // namespace
}  // namespace pipecheck
