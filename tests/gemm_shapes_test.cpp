// GEMM work model: shape parsing and lists, FLOP counting, dtypes, input rotation.
#include "compute/gemm_shapes.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

TEST(GemmShapes, ParsesMxNxK) {
  EXPECT_EQ(parse_shape("8192x4096x1024"), (GemmShape{8192, 4096, 1024}));
  EXPECT_EQ(parse_shape("16X32X48"), (GemmShape{16, 32, 48}));
  EXPECT_EQ(shape_text(parse_shape("1x2x3")), "1x2x3");
}

TEST(GemmShapes, BadShapeIsAUsageErrorNamingIt) {
  for (const std::string bad : {"", "8192x8192", "1x1x1x1", "0x8x8", "-1x8x8", "ax8x8", "1.5x8x8",
                                "8x8x", "x8x8", "99999999x8x8", " 8x8x8"}) {
    try {
      parse_shape(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--shape " + bad + ":"), std::string::npos) << error.what();
    }
  }
}

TEST(GemmShapes, FlopsAreTwoMnk) {
  EXPECT_DOUBLE_EQ(gemm_flops({1, 2, 3}), 12.0);
  EXPECT_DOUBLE_EQ(gemm_flops({8192, 8192, 8192}), 2.0 * 8192.0 * 8192.0 * 8192.0);
  // No 32-bit overflow on the way: 16384^3 x 2 is 8.8e12.
  EXPECT_DOUBLE_EQ(gemm_flops({16384, 16384, 16384}), 8796093022208.0);
}

TEST(GemmShapes, SweepPerMode) {
  const std::vector<GemmShape> quick = {{8192, 8192, 8192}};
  EXPECT_EQ(default_shapes(ProbeMode::quick, GemmDtype::bf16), quick);
  const auto standard = default_shapes(ProbeMode::standard, GemmDtype::bf16);
  EXPECT_GE(standard.size(), 4u);
  EXPECT_NE(std::find(standard.begin(), standard.end(), GemmShape{8192, 8192, 8192}), standard.end());
  const auto full = default_shapes(ProbeMode::full, GemmDtype::bf16);
  EXPECT_GT(full.size(), standard.size());
  EXPECT_NE(std::find(full.begin(), full.end(), GemmShape{16384, 16384, 16384}), full.end());
  // FP64 leaves out the shapes that take seconds a call.
  const auto fp64 = default_shapes(ProbeMode::full, GemmDtype::fp64);
  EXPECT_EQ(std::find(fp64.begin(), fp64.end(), GemmShape{16384, 16384, 16384}), fp64.end());
  EXPECT_NE(std::find(fp64.begin(), fp64.end(), GemmShape{8192, 8192, 8192}), fp64.end());
  for (auto dtype : all_dtypes()) {
    for (const auto& shape : default_shapes(ProbeMode::full, dtype)) {
      EXPECT_EQ(shape_misfit(shape, dtype), "") << shape_text(shape);
    }
  }
}

TEST(GemmShapes, Fp8AndInt8NeedMultiplesOf16) {
  EXPECT_EQ(shape_misfit({100, 100, 100}, GemmDtype::bf16), "");
  EXPECT_EQ(shape_misfit({100, 128, 128}, GemmDtype::fp8), "dimensions must be multiples of 16");
  EXPECT_EQ(shape_misfit({128, 128, 100}, GemmDtype::int8), "dimensions must be multiples of 16");
  EXPECT_EQ(shape_misfit({128, 256, 4096}, GemmDtype::fp8), "");
}

TEST(GemmShapes, Int8KeepsItsInt32SumsExact) {
  // 127 * 127 * K stays below the poison 0x7f7f7f7f = 2139062143 (and so within int32):
  // 132622 * 16129 = 2139060238, 132623 * 16129 = 2139076367.
  EXPECT_EQ(kInt8MaxExactK, 132622);
  EXPECT_LT(kInt8MaxExactK * 127 * 127, kInt8Poison);
  EXPECT_EQ(shape_misfit({128, 128, 132608}, GemmDtype::int8), "");
  EXPECT_EQ(shape_misfit({128, 128, 132624}, GemmDtype::int8),
            "K must be at most 132622 so its int32 sums are exact");
  EXPECT_EQ(shape_misfit({128, 128, 132624}, GemmDtype::fp8), "");  // fp32 accumulation: no limit
}

TEST(GemmShapes, DtypesNamesAndSupport) {
  EXPECT_EQ(all_dtypes().size(), 7u);
  for (auto dtype : all_dtypes()) EXPECT_EQ(parse_gemm_dtype(dtype_name(dtype)), dtype);
  EXPECT_FALSE(parse_gemm_dtype("bfloat16").has_value());
  EXPECT_TRUE(dtype_supported(GemmDtype::fp8, 9, 0));
  EXPECT_TRUE(dtype_supported(GemmDtype::fp8, 8, 9));
  EXPECT_FALSE(dtype_supported(GemmDtype::fp8, 8, 6));
  EXPECT_FALSE(dtype_supported(GemmDtype::bf16, 7, 5));
  EXPECT_TRUE(dtype_supported(GemmDtype::int8, 7, 5));
  EXPECT_STREQ(rate_counter_name(GemmDtype::int8), "op_per_second");
  EXPECT_STREQ(rate_counter_name(GemmDtype::fp8), "flop_per_second");
  EXPECT_EQ(input_element_bytes(GemmDtype::fp8), 1);
  EXPECT_EQ(output_element_bytes(GemmDtype::fp8), 2);   // fp8 writes bf16
  EXPECT_EQ(output_element_bytes(GemmDtype::int8), 4);  // int8 accumulates into int32
}

TEST(GemmShapes, RotationKeepsInputsBeyondL2) {
  const std::uint64_t l2 = 50ULL << 20;  // H100/H200: 50 MiB
  const std::uint64_t lots = 100ULL << 30;
  // 8192^3 bf16: A+B = 256 MiB > 4 x L2: one set is enough.
  EXPECT_EQ(rotation_sets({8192, 8192, 8192}, GemmDtype::bf16, l2, lots), 1);
  // 2048^3 bf16: 16 MiB a set, 200 MiB wanted: 13 sets.
  EXPECT_EQ(input_set_bytes({2048, 2048, 2048}, GemmDtype::bf16), 16ULL << 20);
  EXPECT_EQ(rotation_sets({2048, 2048, 2048}, GemmDtype::bf16, l2, lots), 13);
  // Tiny shapes stop at 16 sets; a small memory budget limits them.
  EXPECT_EQ(rotation_sets({256, 256, 256}, GemmDtype::bf16, l2, lots), 16);
  EXPECT_EQ(rotation_sets({2048, 2048, 2048}, GemmDtype::bf16, l2, 40ULL << 20), 2);
  EXPECT_EQ(rotation_sets({2048, 2048, 2048}, GemmDtype::bf16, l2, 0), 1);
}

TEST(GemmShapes, InputSetsStartOn256ByteBoundaries) {
  EXPECT_EQ(padded_operand_bytes(15, 2), 256u);
  EXPECT_EQ(padded_operand_bytes(128, 2), 256u);
  EXPECT_EQ(padded_operand_bytes(129, 2), 512u);
  EXPECT_EQ(padded_operand_bytes(8192ULL * 8192, 2), 8192ULL * 8192 * 2);  // already aligned: no padding
  // A user's odd shape: A is 1000 x 999 fp8 (999000 bytes); every set's A and B still starts
  // 256-aligned, as cudaMalloc's first set does.
  const GemmShape odd{1000, 1001, 999};
  for (GemmDtype dtype : {GemmDtype::fp8, GemmDtype::bf16, GemmDtype::fp32, GemmDtype::int8}) {
    const int bytes = input_element_bytes(dtype);
    const std::uint64_t a = padded_operand_bytes(static_cast<std::uint64_t>(odd.m * odd.k), bytes);
    const std::uint64_t b = padded_operand_bytes(static_cast<std::uint64_t>(odd.k * odd.n), bytes);
    for (std::uint64_t set = 0; set < 16; ++set) {
      EXPECT_EQ(set * a % kGemmOperandAlignment, 0u) << dtype_name(dtype);
      EXPECT_EQ(set * b % kGemmOperandAlignment, 0u) << dtype_name(dtype);
    }
    EXPECT_GE(a, static_cast<std::uint64_t>(odd.m * odd.k * bytes));
    EXPECT_LT(a, static_cast<std::uint64_t>(odd.m * odd.k * bytes) + kGemmOperandAlignment);
    EXPECT_EQ(input_set_bytes(odd, dtype), a + b);  // rotation and memory budget count the padding
  }
}

TEST(GemmShapes, CallsPerIterationBatchesSmallShapes) {
  EXPECT_EQ(calls_per_iteration(0.0014, 0.02), 15);
  EXPECT_EQ(calls_per_iteration(0.05, 0.02), 1);
  EXPECT_EQ(calls_per_iteration(1e-9, 0.02), 1000);
  EXPECT_EQ(calls_per_iteration(0.0, 0.02), 1);
}

}  // namespace
}  // namespace pipecheck
