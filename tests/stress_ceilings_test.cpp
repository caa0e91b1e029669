// The ceilings `pipecheck stress` holds its burns against: the CPU's from recorded trees with
// the sanity bound beside it, and a GPU's dense GEMM peak from what CUDA reports of it.
#include <gtest/gtest.h>

#include "app/stress_ceilings.hpp"
#include "stress/cpu_burn_isa.hpp"

namespace pipecheck {
namespace {

SysfsRoot tree(const std::string& name) { return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/sysfs/" + name); }

TEST(StressCeilings, CpuOnTheVmIsUnknownAndTheSanityBoundHoldsIt) {
  const CpuBurnPlan plan{&cpu_burn_kernel_baseline, CpuPrecision::fp64, 2, {0, 1}};
  const CpuBurnCeilings ceilings = cpu_burn_ceilings(plan, tree("cpu_ceiling_vm"));
  EXPECT_FALSE(ceilings.ceiling.ceiling);
  EXPECT_NE(ceilings.ceiling.unknown_reason.find("no cpufreq"), std::string::npos);
  ASSERT_TRUE(ceilings.sanity_bound);
  EXPECT_DOUBLE_EQ(ceilings.sanity_bound->value, 384);
  // More threads than CPUs: the bound counts the CPUs; fewer: the threads.
  EXPECT_DOUBLE_EQ(cpu_burn_ceilings({&cpu_burn_kernel_baseline, CpuPrecision::fp32, 8, {0, 1}}, tree("cpu_ceiling_vm"))
                       .sanity_bound->value,
                   768);
  EXPECT_DOUBLE_EQ(cpu_burn_ceilings({&cpu_burn_kernel_baseline, CpuPrecision::fp64, 1, {0, 1}}, tree("cpu_ceiling_vm"))
                       .sanity_bound->value,
                   192);
}

TEST(StressCeilings, CpuWithCpufreqIsKnown) {
  CpuBurnKernel avx512;
  avx512.isa = "avx512";
  avx512.display = "AVX-512";
  avx512.vector_bits = 512;
  avx512.fused = true;
  const CpuBurnCeilings ceilings = cpu_burn_ceilings({&avx512, CpuPrecision::fp64, 4, {0, 1, 2, 3}}, tree("cpu_ceiling_xeon"));
  ASSERT_TRUE(ceilings.ceiling.ceiling) << ceilings.ceiling.unknown_reason;
  EXPECT_DOUBLE_EQ(ceilings.ceiling.ceiling->value, 204.8);
}

StressGpu h100() {
  CudaDeviceFacts facts;
  facts.index = 0;
  facts.name = "NVIDIA H100 80GB HBM3";
  facts.cc_major = 9;
  facts.cc_minor = 0;
  facts.sm_count = 132;
  facts.max_sm_clock_khz = 1980000;
  return StressGpu{0, "0000:17:00.0", facts.name, facts};
}

TEST(StressCeilings, GpuIsTheHigherOfTheoreticalAndVendor) {
  // BF16: 132 SMs x 1980 MHz x 4096 = 1070.5 TFLOP/s, above the vendor's 989.4 (quoted at
  // 1830 MHz): a physical ceiling must not be below what the GPU can do at its max clock.
  const CeilingResult bf16 = gpu_burn_ceiling(h100(), BurnDtype::bf16);
  ASSERT_TRUE(bf16.ceiling) << bf16.unknown_reason;
  EXPECT_NEAR(bf16.ceiling->value, 132 * 1980e6 * 4096 / 1e12, 0.01);
  EXPECT_EQ(bf16.ceiling->unit, "TFLOP/s");
  // Without the SM count CUDA would report, the vendor figure is what is known.
  StressGpu partial = h100();
  partial.facts->sm_count.reset();
  const CeilingResult vendor = gpu_burn_ceiling(partial, BurnDtype::bf16);
  ASSERT_TRUE(vendor.ceiling) << vendor.unknown_reason;
  EXPECT_EQ(vendor.ceiling->basis, "vendor spec");
  StressGpu unknown = h100();
  unknown.facts.reset();
  EXPECT_FALSE(gpu_burn_ceiling(unknown, BurnDtype::bf16).ceiling);
}

}  // namespace
}  // namespace pipecheck
