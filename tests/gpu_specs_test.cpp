// Tests of the GPU data tables: name-to-SKU matching, GeForce detection, and that each table row
// agrees with the spec sheet it cites (SMs x clock x FLOP/clk/SM = the published figure).
#include "ceilings/gpu_specs.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace pipecheck {
namespace {

std::string sku_of(const char* name) {
  const VendorSpec* spec = match_vendor_spec(name);
  return spec ? spec->sku : "(none)";
}

TEST(GpuSpecMatch, HopperNames) {
  EXPECT_EQ(sku_of("NVIDIA H100 80GB HBM3"), "H100 SXM");
  EXPECT_EQ(sku_of("NVIDIA H100 PCIe"), "H100 PCIe");
  EXPECT_EQ(sku_of("NVIDIA H100 NVL"), "H100 NVL");
  EXPECT_EQ(sku_of("NVIDIA H200"), "H200 SXM");
  EXPECT_EQ(sku_of("NVIDIA H200 NVL"), "H200 NVL");
  EXPECT_EQ(sku_of("NVIDIA GH200 480GB"), "(none)");  // Grace Hopper: other clocks and power
  EXPECT_EQ(sku_of("NVIDIA H100"), "(none)");         // form factor not in the name
}

TEST(GpuSpecMatch, AmpereAndVoltaNames) {
  EXPECT_EQ(sku_of("NVIDIA A100-SXM4-80GB"), "A100 SXM 80GB");
  EXPECT_EQ(sku_of("NVIDIA A100-SXM4-40GB"), "A100 SXM 40GB");
  EXPECT_EQ(sku_of("NVIDIA A100-PCIE-40GB"), "A100 PCIe 40GB");
  EXPECT_EQ(sku_of("NVIDIA A100 80GB PCIe"), "A100 PCIe 80GB");
  EXPECT_EQ(sku_of("NVIDIA A10"), "A10");
  EXPECT_EQ(sku_of("NVIDIA A10G"), "(none)");  // AWS board, not the A10
  EXPECT_EQ(sku_of("Tesla V100-SXM2-32GB"), "V100 SXM2");
  EXPECT_EQ(sku_of("Tesla V100-PCIE-16GB"), "V100 PCIe");
  EXPECT_EQ(sku_of("Tesla V100S-PCIE-32GB"), "(none)");  // V100S runs faster clocks
}

TEST(GpuSpecMatch, AdaAndBlackwellNames) {
  EXPECT_EQ(sku_of("NVIDIA B200"), "B200");
  EXPECT_EQ(sku_of("NVIDIA L40S"), "L40S");
  EXPECT_EQ(sku_of("NVIDIA L40"), "(none)");
  EXPECT_EQ(sku_of("NVIDIA L4"), "L4");
  EXPECT_EQ(sku_of("NVIDIA GeForce RTX 4090"), "RTX 4090");
  EXPECT_EQ(sku_of("NVIDIA GeForce RTX 4090 D"), "(none)");  // fewer SMs
  EXPECT_EQ(sku_of("NVIDIA GeForce RTX 4090 Laptop GPU"), "(none)");
  EXPECT_EQ(sku_of(""), "(none)");
}

TEST(GpuSpecGeForce, DecidedByName) {
  EXPECT_TRUE(is_geforce_name("NVIDIA GeForce RTX 4090"));
  EXPECT_TRUE(is_geforce_name("NVIDIA GeForce RTX 3090"));
  EXPECT_TRUE(is_geforce_name("RTX 3080 Ti"));
  EXPECT_FALSE(is_geforce_name("NVIDIA RTX 6000 Ada Generation"));
  EXPECT_FALSE(is_geforce_name("NVIDIA RTX 4000 Ada Generation"));
  EXPECT_FALSE(is_geforce_name("NVIDIA RTX A6000"));
  EXPECT_FALSE(is_geforce_name("NVIDIA RTX PRO 6000 Blackwell Server Edition"));
  EXPECT_FALSE(is_geforce_name("NVIDIA TITAN RTX"));
  EXPECT_FALSE(is_geforce_name("NVIDIA L40S"));
}

TEST(GpuSpecTable, EveryRowHasSourceAndEveryUnknownCellAReason) {
  const Dtype all[] = {Dtype::fp64, Dtype::fp32, Dtype::tf32, Dtype::fp16, Dtype::bf16, Dtype::fp8, Dtype::int8};
  const auto rows = arch_gemm_rates();
  ASSERT_EQ(rows.size(), 10u);
  for (const auto& row : rows) {
    EXPECT_GT(std::string(row.source).size(), 10u) << sm_label(row.cc_major, row.cc_minor);
    for (Dtype d : all) {
      const GemmRate& cell = rate_of(row, d);
      if (cell.pro <= 0 || cell.geforce <= 0) {
        EXPECT_FALSE(std::string(cell.why).empty()) << sm_label(row.cc_major, row.cc_minor) << " " << to_string(d);
      }
      if (cell.pro > 0 && cell.geforce > 0) {
        EXPECT_LE(cell.geforce, cell.pro);
      }
    }
  }
}

TEST(GpuSpecTable, FeatureGenerations) {
  for (const auto& row : arch_gemm_rates()) {
    const int cc = row.cc_major * 10 + row.cc_minor;
    if (cc < 89) {
      EXPECT_EQ(row.fp8.pro, kRateNotSupported) << cc;  // FP8 only sm_89+
    }
    if (cc < 80) {
      EXPECT_EQ(row.tf32.pro, kRateNotSupported) << cc;  // TF32 not before 8.0
      EXPECT_EQ(row.bf16.pro, kRateNotSupported) << cc;
    }
  }
}

TEST(GpuSpecTable, CoversTheComputeCapabilities) {
  for (auto [major, minor] : {std::pair{7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0}}) {
    EXPECT_NE(find_arch_gemm_rates(major, minor), nullptr) << major << "." << minor;
  }
  EXPECT_EQ(find_arch_gemm_rates(6, 1), nullptr);
  const auto answer = gemm_per_clk_sm(12, 1, Dtype::fp32, false);
  EXPECT_EQ(answer.per_clk_sm, 256);
  EXPECT_EQ(answer.row_label, "sm_121, using the sm_120 row");
}

TEST(GpuSpecTable, UnverifiedCellsStayUnknownWithReason) {
  const auto orin = gemm_per_clk_sm(8, 7, Dtype::fp16, false);
  EXPECT_FALSE(orin.per_clk_sm);
  EXPECT_NE(orin.unknown_reason.find("not verified"), std::string::npos);
  EXPECT_EQ(gemm_per_clk_sm(8, 7, Dtype::int8, false).per_clk_sm, 4096);
  // sm_120: the GeForce FP32-accumulate rate is published, the professional one is not.
  EXPECT_EQ(gemm_per_clk_sm(12, 0, Dtype::bf16, true).per_clk_sm, 512);
  EXPECT_FALSE(gemm_per_clk_sm(12, 0, Dtype::bf16, false).per_clk_sm);
}

TEST(GpuSpecTable, GeForceRateOnlyFlaggedWhereItDiffers) {
  const auto bf16 = gemm_per_clk_sm(8, 6, Dtype::bf16, true);
  EXPECT_EQ(bf16.per_clk_sm, 512);
  EXPECT_TRUE(bf16.geforce_rate);
  const auto int8 = gemm_per_clk_sm(8, 6, Dtype::int8, true);
  EXPECT_EQ(int8.per_clk_sm, 2048);
  EXPECT_FALSE(int8.geforce_rate);
  EXPECT_EQ(gemm_per_clk_sm(8, 6, Dtype::bf16, false).per_clk_sm, 1024);
}

// Each vendor row with a stated tensor clock reproduces its BF16/FP16 figure from the rate table.
TEST(GpuSpecTable, VendorFiguresAgreeWithRateTable) {
  struct Check {
    const char* name;
    int major, minor;
    Dtype dtype;
  };
  const Check checks[] = {
      {"NVIDIA H100 80GB HBM3", 9, 0, Dtype::bf16}, {"NVIDIA H100 80GB HBM3", 9, 0, Dtype::fp8},
      {"NVIDIA A100-SXM4-80GB", 8, 0, Dtype::bf16}, {"NVIDIA A100-SXM4-80GB", 8, 0, Dtype::int8},
      {"Tesla V100-SXM2-16GB", 7, 0, Dtype::fp16},  {"NVIDIA L40S", 8, 9, Dtype::fp8},
      {"NVIDIA L4", 8, 9, Dtype::bf16},             {"NVIDIA GeForce RTX 4090", 8, 9, Dtype::bf16},
      {"NVIDIA GeForce RTX 4090", 8, 9, Dtype::fp8}, {"NVIDIA A10", 8, 6, Dtype::tf32},
      {"NVIDIA H100 PCIe", 9, 0, Dtype::bf16},      {"NVIDIA H100 PCIe", 9, 0, Dtype::fp8},
      {"Tesla V100-PCIE-16GB", 7, 0, Dtype::fp16},
  };
  for (const Check& c : checks) {
    const VendorSpec* spec = match_vendor_spec(c.name);
    ASSERT_NE(spec, nullptr) << c.name;
    ASSERT_GT(spec->tensor_clock_mhz, 0) << c.name;
    const auto rate = gemm_per_clk_sm(c.major, c.minor, c.dtype, is_geforce_name(c.name));
    ASSERT_TRUE(rate.per_clk_sm) << c.name;
    const double derived = double(spec->sm_count) * spec->tensor_clock_mhz * *rate.per_clk_sm / 1e6;
    const double published = vendor_figure(*spec, c.dtype);
    EXPECT_NEAR(derived / published, 1.0, 0.005) << c.name << " " << to_string(c.dtype);  // all within 0.3%
  }
}

TEST(GpuSpecTable, VendorRowsAreComplete) {
  for (const VendorSpec& spec : vendor_specs()) {
    EXPECT_GT(spec.sm_count, 0) << spec.sku;
    EXPECT_GT(spec.memory_gbps, 0) << spec.sku;
    EXPECT_GT(spec.fp32, 0) << spec.sku;
    EXPECT_GT(std::string(spec.source).size(), 10u) << spec.sku;
  }
  EXPECT_DOUBLE_EQ(match_vendor_spec("NVIDIA H200")->memory_gbps, 4800);
  EXPECT_DOUBLE_EQ(match_vendor_spec("NVIDIA A100-SXM4-80GB")->memory_gbps, 2039);
  // B200: one sheet (HGX B200, 180 GB boards) for compute and bandwidth alike.
  EXPECT_DOUBLE_EQ(match_vendor_spec("NVIDIA B200")->memory_gbps, 7700);
  EXPECT_DOUBLE_EQ(vendor_figure(*match_vendor_spec("NVIDIA B200"), Dtype::bf16), 2250);
  EXPECT_DOUBLE_EQ(vendor_figure(*match_vendor_spec("NVIDIA A100-SXM4-80GB"), Dtype::fp8), 0);
}

TEST(GpuSpecNvlink, GenerationsAndRates) {
  EXPECT_EQ(nvlink_version_of_cc(7, 0), 2);
  EXPECT_EQ(nvlink_version_of_cc(8, 0), 3);
  EXPECT_EQ(nvlink_version_of_cc(9, 0), 4);
  EXPECT_EQ(nvlink_version_of_cc(10, 0), 5);
  EXPECT_EQ(nvlink_version_of_cc(10, 3), 5);
  EXPECT_EQ(nvlink_version_of_cc(8, 6), 3);
  EXPECT_FALSE(nvlink_version_of_cc(8, 9));
  EXPECT_DOUBLE_EQ(find_nvlink_rate(3, 8, 6)->gbps_per_link_per_direction, 14.0625);  // GA102
  EXPECT_DOUBLE_EQ(find_nvlink_rate(3, 8, 6)->gbps_per_link_per_direction * 4 * 2, 112.5);
  EXPECT_DOUBLE_EQ(find_nvlink_rate(3, 8, 0)->gbps_per_link_per_direction, 25);  // A100
  const NvlinkGeneration* gen4 = find_nvlink_generation(4);
  ASSERT_NE(gen4, nullptr);
  EXPECT_DOUBLE_EQ(gen4->gbps_per_link_per_direction * gen4->links_per_gpu, 450);
  EXPECT_DOUBLE_EQ(find_nvlink_generation(5)->gbps_per_link_per_direction, 50);
  EXPECT_DOUBLE_EQ(find_nvlink_generation(2)->gbps_per_link_per_direction * 6, 150);
  EXPECT_EQ(find_nvlink_generation(9), nullptr);
}

}  // namespace
}  // namespace pipecheck
