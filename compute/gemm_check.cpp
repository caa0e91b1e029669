// Host reference of sampled GEMM outputs, decoding the GPU's own storage formats.
#include "compute/gemm_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace pipecheck {

double gemm_tolerance(GemmDtype dtype) {
  switch (dtype) {
    case GemmDtype::fp64: return 1e-10;
    case GemmDtype::fp32: return 1e-4;
    case GemmDtype::tf32: return 5e-3;
    case GemmDtype::fp16: return 3e-3;
    case GemmDtype::bf16: return 1e-2;
    case GemmDtype::fp8: return 1e-2;
    case GemmDtype::int8: return 0.0;
  }
  return 0.0;
}

double decode_bf16(std::uint16_t bits) {
  const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &word, sizeof(value));
  return value;
}

double decode_fp16(std::uint16_t bits) {
  const int sign = bits >> 15 ? -1 : 1;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0x1f) {
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  }
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);  // subnormal: m x 2^-14 / 1024
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double decode_e4m3(std::uint8_t bits) {
  const int sign = bits >> 7 ? -1 : 1;
  const int exponent = (bits >> 3) & 0xf;
  const int mantissa = bits & 0x7;
  if (exponent == 0xf && mantissa == 0x7) return std::numeric_limits<double>::quiet_NaN();
  if (exponent == 0) return sign * std::ldexp(mantissa, -9);  // subnormal: m/8 x 2^-6
  return sign * std::ldexp(8 + mantissa, exponent - 10);
}

namespace {

template <typename T>
T load(const unsigned char* data, std::size_t index) {
  T value;
  std::memcpy(&value, data + index * sizeof(T), sizeof(T));
  return value;
}

}  // namespace

double decode_input(GemmDtype dtype, const unsigned char* data, std::size_t index) {
  switch (dtype) {
    case GemmDtype::fp64: return load<double>(data, index);
    case GemmDtype::fp32:
    case GemmDtype::tf32: return load<float>(data, index);
    case GemmDtype::fp16: return decode_fp16(load<std::uint16_t>(data, index));
    case GemmDtype::bf16: return decode_bf16(load<std::uint16_t>(data, index));
    case GemmDtype::fp8: return decode_e4m3(load<std::uint8_t>(data, index));
    case GemmDtype::int8: return load<std::int8_t>(data, index);
  }
  return 0.0;
}

double decode_output(GemmDtype dtype, const unsigned char* data, std::size_t index) {
  switch (dtype) {
    case GemmDtype::fp64: return load<double>(data, index);
    case GemmDtype::fp32:
    case GemmDtype::tf32: return load<float>(data, index);
    case GemmDtype::fp16: return decode_fp16(load<std::uint16_t>(data, index));
    case GemmDtype::bf16:
    case GemmDtype::fp8: return decode_bf16(load<std::uint16_t>(data, index));
    case GemmDtype::int8: return load<std::int32_t>(data, index);
  }
  return 0.0;
}

std::vector<std::int64_t> sample_indices(std::int64_t extent, int count, std::uint64_t seed) {
  std::vector<std::int64_t> indices;
  if (extent <= 0 || count <= 0) return indices;
  // The edges catch tile-boundary bugs; the rest spread over the matrix.
  indices.push_back(0);
  if (extent > 1) indices.push_back(extent - 1);
  std::uint64_t state = seed | 1;
  while (static_cast<int>(indices.size()) < std::min<std::int64_t>(count, extent)) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto index = static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(extent));
    if (std::find(indices.begin(), indices.end(), index) == indices.end()) indices.push_back(index);
  }
  std::sort(indices.begin(), indices.end());
  return indices;
}

GemmCheckResult check_gemm_sample(const GemmSample& sample) {
  GemmCheckResult result;
  result.tolerance = gemm_tolerance(sample.dtype);
  const std::size_t rows = sample.rows.size();
  const std::size_t cols = sample.cols.size();
  const auto k = static_cast<std::size_t>(sample.shape.k);
  const std::size_t in_bytes = static_cast<std::size_t>(input_element_bytes(sample.dtype));
  const std::size_t out_bytes = static_cast<std::size_t>(output_element_bytes(sample.dtype));
  if (rows == 0 || cols == 0 || sample.a_rows.size() < rows * k * in_bytes ||
      sample.b_cols.size() < cols * k * in_bytes || sample.d_values.size() < rows * cols * out_bytes) {
    result.detail = "sample is incomplete";
    return result;
  }
  std::vector<double> reference(rows * cols);
  double sum_squares = 0;
  for (std::size_t c = 0; c < cols; ++c) {
    for (std::size_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (std::size_t kk = 0; kk < k; ++kk) {
        sum += decode_input(sample.dtype, sample.a_rows.data(), r * k + kk) *
               decode_input(sample.dtype, sample.b_cols.data(), c * k + kk);
      }
      reference[c * rows + r] = sum * sample.scale;
      sum_squares += reference[c * rows + r] * reference[c * rows + r];
    }
  }
  const double rms = std::sqrt(sum_squares / static_cast<double>(rows * cols));
  // An all-zero reference means the inputs were never filled: no check of a GEMM is possible.
  if (!(rms > 0)) {
    result.detail = "reference is all zeros: inputs were not initialised";
    return result;
  }
  int nan_count = 0;
  double worst_value = 0;
  double worst_reference = 0;
  for (std::size_t c = 0; c < cols; ++c) {
    for (std::size_t r = 0; r < rows; ++r) {
      const double value = decode_output(sample.dtype, sample.d_values.data(), c * rows + r);
      const double ref = reference[c * rows + r];
      double error = std::abs(value - ref) / std::max(std::abs(ref), rms);
      if (!std::isfinite(value)) {
        ++nan_count;
        error = std::numeric_limits<double>::infinity();
      }
      if (error > result.max_rel_error || result.worst_row < 0) {
        result.max_rel_error = error;
        result.worst_row = sample.rows[r];
        result.worst_col = sample.cols[c];
        worst_value = value;
        worst_reference = ref;
      }
    }
  }
  result.passed = nan_count == 0 && result.max_rel_error <= result.tolerance;
  if (!result.passed) {
    std::ostringstream text;
    text << "D(" << result.worst_row << "," << result.worst_col << ") = " << worst_value
         << ", reference " << worst_reference << " (error " << result.max_rel_error
         << " > tolerance " << result.tolerance << ")";
    if (nan_count > 0) text << "; " << nan_count << " non-finite";
    result.detail = text.str();
  }
  return result;
}

}  // namespace pipecheck
