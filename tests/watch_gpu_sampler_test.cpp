// The watch's GPU sampler degrades without NVML: no GPU rows, a note saying why, never a crash.
// With a GPU and its driver, it reads every GPU (device tier; skipped elsewhere).
#include <gtest/gtest.h>

#include "watch/gpu_watch_sampler.hpp"

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
