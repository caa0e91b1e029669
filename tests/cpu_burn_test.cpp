// The CPU burn's arithmetic and its checks: every variant this CPU runs matches its scalar
// reference bit for bit and the recurrence's closed form; a corrupted lane is caught and named;
// a variant whose loop was dropped or shortened is caught; FLOPs are the work actually run;
// fault injection hands out exactly N faults.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <thread>

#include "stress/burn_verify.hpp"
#include "stress/cpu_burn.hpp"
#include "stress/cpu_burn_isa.hpp"
#include "stress/fault_injection.hpp"
#include "stress/verify_rule.hpp"

namespace pipecheck {
namespace {

constexpr CpuBurnShape kSmall{3, 4096};

std::vector<const CpuBurnKernel*> runnable_kernels() {
  std::vector<const CpuBurnKernel*> kernels;
  for (const CpuBurnKernel* kernel : built_cpu_burn_kernels()) {
    if (cpu_runs(*kernel)) kernels.push_back(kernel);
  }
  return kernels;
}

TEST(CpuBurnKernels, TheBaselineAlwaysRunsAndTheWidestIsChosen) {
  const auto kernels = runnable_kernels();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.back(), &cpu_burn_kernel_baseline);
  EXPECT_EQ(&widest_cpu_burn_kernel(), kernels.front());
  EXPECT_EQ(find_cpu_burn_kernel(widest_cpu_burn_kernel().isa), &widest_cpu_burn_kernel());
  EXPECT_EQ(find_cpu_burn_kernel("avx1024"), nullptr);
#if defined(__x86_64__)
  // On x86 the CPUID switch must agree with what the kernel reports in /proc/cpuinfo.
  EXPECT_EQ(cpu_runs(cpu_burn_kernel_avx512), __builtin_cpu_supports("avx512f") != 0);
  EXPECT_EQ(cpu_burn_isa_names(), "avx512, avx2, sse2");
#endif
}

class EveryRunnableKernel : public ::testing::TestWithParam<CpuPrecision> {};

TEST_P(EveryRunnableKernel, ChunksMatchTheReferenceAndTheClosedForm) {
  for (const CpuBurnKernel* kernel : runnable_kernels()) {
    SCOPED_TRACE(kernel->isa);
    auto thread = make_cpu_burn_thread(*kernel, GetParam(), 1, 42, kSmall);
    std::vector<std::string> problems;
    EXPECT_EQ(thread->prepare(&problems), 0u) << (problems.empty() ? "" : problems[0]);
    EXPECT_EQ(thread->lanes(), kernel->lanes(GetParam()));
    for (std::uint64_t chunk = 0; chunk < 7; ++chunk) {
      const CpuChunkCheck check = thread->run_chunk(chunk);
      EXPECT_EQ(check.wrong, 0u) << check.first_wrong;
    }
    EXPECT_DOUBLE_EQ(thread->chunk_flops(), 2.0 * kernel->lanes(GetParam()) * kSmall.iterations);
  }
}

TEST_P(EveryRunnableKernel, ACorruptedLaneIsCaughtAndNamed) {
  for (const CpuBurnKernel* kernel : runnable_kernels()) {
    SCOPED_TRACE(kernel->isa);
    auto thread = make_cpu_burn_thread(*kernel, GetParam(), 3, 7, kSmall);
    ASSERT_EQ(thread->prepare(nullptr), 0u);
    const int lane = thread->lanes() - 2;
    const CpuChunkCheck check = thread->run_chunk(5, lane);
    EXPECT_EQ(check.wrong, 1u);
    EXPECT_NE(check.first_wrong.find("cpu thread 3 chunk 5 (seed 2): 1 of " + std::to_string(thread->lanes()) +
                                     " lanes wrong, first lane " + std::to_string(lane) + ":"),
              std::string::npos)
        << check.first_wrong;
    EXPECT_NE(check.first_wrong.find("expected"), std::string::npos);
    EXPECT_EQ(thread->run_chunk(6).wrong, 0u);  // the next chunk is clean again
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, EveryRunnableKernel,
                         ::testing::Values(CpuPrecision::fp64, CpuPrecision::fp32),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(CpuBurnKernels, DifferentThreadsAndChunksGetDifferentInputs) {
  // Seen through a broken variant that leaves its inputs untouched: each chunk's "result" is
  // then its seed's x0, named as the first wrong lane against the real reference.
  CpuBurnKernel identity = cpu_burn_kernel_baseline;
  identity.run_fp64 = [](double*, const double*, const double*, std::uint64_t) {};
  auto x0_of = [](const std::string& text) {
    const auto from = text.find("first lane 0: ");
    return text.substr(from, text.find(", expected") - from);
  };
  std::set<std::string> seen;
  for (unsigned t = 0; t < 2; ++t) {
    auto thread = make_cpu_burn_thread(identity, CpuPrecision::fp64, t, 9, kSmall);
    ASSERT_EQ(thread->prepare(nullptr), 0u);
    for (int chunk = 0; chunk < kSmall.seeds; ++chunk) {
      const CpuChunkCheck check = thread->run_chunk(chunk);
      EXPECT_EQ(check.wrong, std::uint64_t(thread->lanes()));
      seen.insert(x0_of(check.first_wrong));
      // A chunk one cycle later starts from the same seed.
      EXPECT_EQ(x0_of(thread->run_chunk(chunk + kSmall.seeds).first_wrong), x0_of(check.first_wrong));
    }
  }
  EXPECT_EQ(seen.size(), 2u * kSmall.seeds);
}

// The defect of issue 12: the compiler dropped the work. A variant whose loop does nothing, or
// stops one step short, is caught: by the closed form when the reference shares the defect, by
// the bit-for-bit check when only the vector code has it.
TEST(CpuBurnKernels, DroppedOrShortenedWorkIsCaught) {
  CpuBurnKernel dropped = cpu_burn_kernel_baseline;
  dropped.run_fp64 = [](double*, const double*, const double*, std::uint64_t) {};
  dropped.reference_fp64 = dropped.run_fp64;
  auto thread = make_cpu_burn_thread(dropped, CpuPrecision::fp64, 0, 1, kSmall);
  std::vector<std::string> problems;
  EXPECT_EQ(thread->prepare(&problems), std::uint64_t(kSmall.seeds) * thread->lanes());
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("the reference misses the closed form at lane 0"), std::string::npos) << problems[0];

  CpuBurnKernel short_by_one = cpu_burn_kernel_baseline;
  short_by_one.run_fp64 = [](double* x, const double* a, const double* b, std::uint64_t n) {
    cpu_burn_kernel_baseline.run_fp64(x, a, b, n - 1);
  };
  thread = make_cpu_burn_thread(short_by_one, CpuPrecision::fp64, 0, 1, kSmall);
  ASSERT_EQ(thread->prepare(nullptr), 0u);
  EXPECT_EQ(thread->run_chunk(0).wrong, std::uint64_t(thread->lanes()));
}

TEST(CpuBurnVerify, ClosedFormAndItsBound) {
  // x <- 0.5 x + 1 from 0: 0, 1, 1.5, 1.75: the closed form 2 - 2 x 0.5^n.
  EXPECT_DOUBLE_EQ(static_cast<double>(recurrence_closed_form(0, 0.5, 1, 3)), 1.75);
  EXPECT_NEAR(static_cast<double>(recurrence_closed_form(2, 0.999, 0.001, 1000000)), 1.0, 1e-12);
  const long double fused = recurrence_error_bound(1, 0.999, 0.001, 1000, 0x1p-53L, true);
  const long double unfused = recurrence_error_bound(1, 0.999, 0.001, 1000, 0x1p-53L, false);
  EXPECT_GT(fused, 0);
  EXPECT_NEAR(static_cast<double>(unfused / fused), 2.0, 0.1);
  // Tight enough that one step more or less is far outside it.
  const long double step = std::fabs(recurrence_closed_form(2, 1 - 0x1p-12L, 0x1p-12L, 4096) -
                                     recurrence_closed_form(2, 1 - 0x1p-12L, 0x1p-12L, 4095));
  EXPECT_GT(step, 100 * recurrence_error_bound(2, 1 - 0x1p-12L, 0x1p-12L, 4096, 0x1p-53L, true));
}

TEST(CpuBurnVerify, CountsDifferingBitsAndNaNs) {
  const std::vector<double> reference = {1.0, 2.0, 3.0, 4.0};
  std::vector<double> result = reference;
  std::size_t first = 99;
  EXPECT_EQ(count_differing(std::span<const double>(result), std::span<const double>(reference), &first), 0u);
  EXPECT_EQ(first, 99u);
  result[2] = std::nextafter(3.0, 4.0);  // one ulp
  result[3] = std::nan("");
  EXPECT_EQ(count_differing(std::span<const double>(result), std::span<const double>(reference), &first), 2u);
  EXPECT_EQ(first, 2u);
  std::vector<double> nans(2, std::nan(""));
  EXPECT_EQ(count_differing(std::span<const double>(nans), std::span<const double>(nans)), 2u);
  const std::vector<float> short_reference = {1.0f};
  const std::vector<float> longer = {1.0f, 2.0f};
  EXPECT_EQ(count_differing(std::span<const float>(longer), std::span<const float>(short_reference), &first), 1u);
  EXPECT_EQ(first, 1u);
}

TEST(CpuBurnFaults, ExactlyNFaultsOverAnyNumberOfThreads) {
  FaultInjector faults(1000);
  std::atomic<std::uint64_t> taken{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t) {
    pool.emplace_back([&] {
      for (int i = 0; i < 600; ++i) {
        if (faults.take()) ++taken;
      }
    });
  }
  for (auto& thread : pool) thread.join();
  EXPECT_EQ(taken.load(), 1000u);
  EXPECT_EQ(faults.injected(), 1000u);
  EXPECT_FALSE(faults.take());
  EXPECT_EQ(faults.take_all(), 0u);
  FaultInjector rest(5);
  std::uint64_t number = 9;
  EXPECT_TRUE(rest.take(&number));
  EXPECT_EQ(number, 0u);
  EXPECT_EQ(rest.take_all(), 4u);
  EXPECT_EQ(rest.injected(), 5u);
  EXPECT_EQ(FaultInjector(0).take_all(), 0u);
}

TEST(CpuBurnFaults, IndicesAreDistinctSpreadAndInRange) {
  const auto indices = fault_indices(5, 100);
  EXPECT_EQ(indices, (std::vector<std::uint64_t>{10, 30, 50, 70, 90}));
  EXPECT_EQ(fault_indices(10, 3).size(), 3u);  // no more faults than elements
  const auto all = fault_indices(3, 3);
  EXPECT_EQ(std::set<std::uint64_t>(all.begin(), all.end()).size(), 3u);
  const std::uint64_t huge = 1ull << 62;
  EXPECT_LT(fault_index(999, 1000, huge), huge);
  EXPECT_GT(fault_index(999, 1000, huge), huge / 2);
  EXPECT_EQ(fault_index(0, 1, 1), 0u);
}

TEST(CpuBurnFaults, ACorruptedElementIsWrongUnderEveryCheck) {
  for (double value : {0.0, 1.0, -3.5, 1e-300, 1e300, 2.0}) {
    double corrupted = value;
    corrupt_element(corrupted);
    EXPECT_TRUE(burn_result_wrong(corrupted, value, 0.5)) << value << " -> " << corrupted;
  }
  for (float value : {0.0f, 1.0f, -3.5f, 1e-30f, 1e30f}) {
    float corrupted = value;
    corrupt_element(corrupted);
    EXPECT_TRUE(burn_result_wrong(corrupted, value, 0.5)) << value << " -> " << corrupted;
  }
  std::uint32_t word = 0x55555555u;
  corrupt_element(word);
  EXPECT_NE(word, 0x55555555u);
  EXPECT_EQ(fault_mask(8), 1ull << 62);
  EXPECT_EQ(fault_mask(4), 1ull << 30);
}

}  // namespace
}  // namespace pipecheck
