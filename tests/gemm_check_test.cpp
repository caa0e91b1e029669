// GEMM verification: storage-format decoding, tolerance per dtype, and the host reference
// catching a wrong, unwritten or non-finite element.
#include "compute/gemm_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

namespace pipecheck {
namespace {

TEST(GemmCheck, DecodesStorageFormats) {
  EXPECT_EQ(decode_bf16(0x3f80), 1.0);
  EXPECT_EQ(decode_bf16(0xc040), -3.0);
  EXPECT_EQ(decode_fp16(0x3c00), 1.0);
  EXPECT_EQ(decode_fp16(0xc000), -2.0);
  EXPECT_EQ(decode_fp16(0x7bff), 65504.0);
  EXPECT_EQ(decode_fp16(0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(decode_fp16(0x7c00)));
  EXPECT_TRUE(std::isnan(decode_fp16(0x7e00)));
  EXPECT_EQ(decode_e4m3(0x38), 1.0);
  EXPECT_EQ(decode_e4m3(0x7e), 448.0);
  EXPECT_EQ(decode_e4m3(0xb8), -1.0);
  EXPECT_EQ(decode_e4m3(0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(decode_e4m3(0x08), std::ldexp(1.0, -6));
  EXPECT_TRUE(std::isnan(decode_e4m3(0x7f)));
  EXPECT_TRUE(std::isnan(decode_e4m3(0xff)));
}

TEST(GemmCheck, TolerancePerDtype) {
  EXPECT_EQ(gemm_tolerance(GemmDtype::int8), 0.0);
  EXPECT_LT(gemm_tolerance(GemmDtype::fp64), gemm_tolerance(GemmDtype::fp32));
  EXPECT_LT(gemm_tolerance(GemmDtype::fp32), gemm_tolerance(GemmDtype::tf32));
  EXPECT_LT(gemm_tolerance(GemmDtype::fp16), gemm_tolerance(GemmDtype::bf16));
  EXPECT_DOUBLE_EQ(gemm_tolerance(GemmDtype::bf16), 1e-2);
  EXPECT_DOUBLE_EQ(gemm_tolerance(GemmDtype::fp8), 1e-2);
  // A bf16 output rounds at 2^-9 relative: the tolerance must admit that, with room.
  EXPECT_GT(gemm_tolerance(GemmDtype::bf16), std::ldexp(1.0, -9));
}

TEST(GemmCheck, SampleIndicesCoverEdges) {
  const auto rows = sample_indices(8192, 16, 7);
  ASSERT_EQ(rows.size(), 16u);
  EXPECT_EQ(rows.front(), 0);
  EXPECT_EQ(rows.back(), 8191);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end());
  EXPECT_EQ(sample_indices(3, 16, 7), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_TRUE(sample_indices(0, 16, 7).empty());
}

// Encodes a value exactly representable in the format by searching its bit patterns (the
// decoders are checked against known constants above).
std::vector<unsigned char> encode(GemmDtype dtype, double value, bool output) {
  const int bytes = output ? output_element_bytes(dtype) : input_element_bytes(dtype);
  std::vector<unsigned char> out(static_cast<std::size_t>(bytes));
  auto put = [&](auto v) { std::memcpy(out.data(), &v, sizeof(v)); };
  switch (bytes) {
    case 8: put(value); return out;
    case 4:
      if (dtype == GemmDtype::int8) put(static_cast<std::int32_t>(value));
      else put(static_cast<float>(value));
      return out;
    default: break;
  }
  if (dtype == GemmDtype::int8) {
    put(static_cast<std::int8_t>(value));
    return out;
  }
  for (std::uint32_t bits = 0; bits < (1u << (8 * bytes)); ++bits) {
    std::memcpy(out.data(), &bits, static_cast<std::size_t>(bytes));
    const double decoded = output ? decode_output(dtype, out.data(), 0) : decode_input(dtype, out.data(), 0);
    if (decoded == value) return out;
  }
  ADD_FAILURE() << value << " has no exact encoding in " << dtype_name(dtype);
  return out;
}

// A small exact problem: inputs in {-2..2}, k = 8, so every sum is an exact small integer in
// every format; D holds the exact product.
GemmSample exact_sample(GemmDtype dtype) {
  GemmSample sample;
  sample.dtype = dtype;
  sample.shape = {4, 3, 8};
  sample.rows = {0, 1, 2, 3};
  sample.cols = {0, 1, 2};
  const int k = 8;
  std::vector<double> a(4 * k), b(3 * k);
  for (int i = 0; i < 4 * k; ++i) a[i] = (i * 7 + 3) % 5 - 2;
  for (int i = 0; i < 3 * k; ++i) b[i] = (i * 3 + 1) % 5 - 2;
  for (double v : a) {
    auto e = encode(dtype, v, false);
    sample.a_rows.insert(sample.a_rows.end(), e.begin(), e.end());
  }
  for (double v : b) {
    auto e = encode(dtype, v, false);
    sample.b_cols.insert(sample.b_cols.end(), e.begin(), e.end());
  }
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 4; ++r) {
      double sum = 0;
      for (int kk = 0; kk < k; ++kk) sum += a[r * k + kk] * b[c * k + kk];
      auto e = encode(dtype, sum, true);
      sample.d_values.insert(sample.d_values.end(), e.begin(), e.end());
    }
  }
  return sample;
}

void set_output(GemmSample& sample, std::size_t index, double value) {
  const auto e = encode(sample.dtype, value, true);
  std::copy(e.begin(), e.end(), sample.d_values.begin() + static_cast<std::ptrdiff_t>(index * e.size()));
}

TEST(GemmCheck, ExactProductPassesForEveryDtype) {
  for (auto dtype : all_dtypes()) {
    const GemmCheckResult result = check_gemm_sample(exact_sample(dtype));
    EXPECT_TRUE(result.passed) << dtype_name(dtype) << ": " << result.detail;
    EXPECT_EQ(result.max_rel_error, 0.0) << dtype_name(dtype);
  }
}

TEST(GemmCheck, InjectedWrongElementIsCaughtForEveryDtype) {
  for (auto dtype : all_dtypes()) {
    GemmSample sample = exact_sample(dtype);
    const double right = decode_output(dtype, sample.d_values.data(), 5);  // D(1, 1)
    set_output(sample, 5, right + 4.0);
    const GemmCheckResult result = check_gemm_sample(sample);
    EXPECT_FALSE(result.passed) << dtype_name(dtype);
    EXPECT_EQ(result.worst_row, 1) << dtype_name(dtype);
    EXPECT_EQ(result.worst_col, 1) << dtype_name(dtype);
    EXPECT_NE(result.detail.find("D(1,1)"), std::string::npos) << result.detail;
  }
}

// One byte of one sampled output flipped (the top byte's 0x40 bit: the exponent's high bit of a
// float, bit 30 of an int32): caught and named for every dtype. (A flip in a float's low
// mantissa bits is rounding-sized: no tolerance check can tell it from accumulation order.)
TEST(GemmCheck, OneFlippedByteIsCaughtAndNamedForEveryDtype) {
  for (auto dtype : all_dtypes()) {
    GemmSample sample = exact_sample(dtype);
    const auto bytes = static_cast<std::size_t>(output_element_bytes(dtype));
    const std::size_t element = 1 * sample.rows.size() + 2;  // D(2, 1)
    sample.d_values[element * bytes + bytes - 1] ^= 0x40;
    const GemmCheckResult result = check_gemm_sample(sample);
    EXPECT_FALSE(result.passed) << dtype_name(dtype);
    EXPECT_NE(result.detail.find("D(2,1)"), std::string::npos) << dtype_name(dtype) << ": " << result.detail;
  }
}

TEST(GemmCheck, NonFiniteOrPoisonedOutputFails) {
  GemmSample sample = exact_sample(GemmDtype::bf16);
  sample.d_values[0] = 0xff;  // 0xffff: the poison pattern, a NaN
  sample.d_values[1] = 0xff;
  const GemmCheckResult result = check_gemm_sample(sample);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.detail.find("non-finite"), std::string::npos) << result.detail;
}

TEST(GemmCheck, RoundingWithinToleranceStillPasses) {
  // fp32 output off by a relative 1e-6 of its value: accumulation-order noise, not an error.
  GemmSample sample = exact_sample(GemmDtype::fp32);
  const double right = decode_output(GemmDtype::fp32, sample.d_values.data(), 2);
  set_output(sample, 2, static_cast<float>(right * (1 + 1e-6) + 1e-6));
  EXPECT_TRUE(check_gemm_sample(sample).passed);
  // int8 is exact: off by one fails.
  GemmSample ints = exact_sample(GemmDtype::int8);
  set_output(ints, 2, decode_output(GemmDtype::int8, ints.d_values.data(), 2) + 1);
  EXPECT_FALSE(check_gemm_sample(ints).passed);
}

TEST(GemmCheck, ScaleIsApplied) {
  // fp8's per-tensor scales multiply the product: an unscaled D must fail.
  GemmSample sample = exact_sample(GemmDtype::fp8);
  sample.scale = 0.125;
  EXPECT_FALSE(check_gemm_sample(sample).passed);
}

TEST(GemmCheck, ZeroInputsOrIncompleteSampleCannotPass) {
  GemmSample sample = exact_sample(GemmDtype::fp32);
  std::fill(sample.a_rows.begin(), sample.a_rows.end(), 0);
  std::fill(sample.d_values.begin(), sample.d_values.end(), 0);
  EXPECT_FALSE(check_gemm_sample(sample).passed);
  GemmSample short_sample = exact_sample(GemmDtype::fp32);
  short_sample.d_values.resize(4);
  EXPECT_FALSE(check_gemm_sample(short_sample).passed);
}

}  // namespace
}  // namespace pipecheck
