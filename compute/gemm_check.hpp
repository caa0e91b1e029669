// Correctness beside speed for GEMM: a host reference (in double) of a sample of output
// elements, computed from the very bits the GPU multiplied, with a tolerance per dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/gemm_shapes.hpp"

namespace pipecheck {

// Largest accepted error per dtype, as |d - ref| / max(|ref|, rms(ref over the sample)): the
// output's own rounding plus accumulation order. bf16/fp8 (bf16 output, 8-bit mantissa) 1e-2,
// fp16 3e-3, tf32 (10-bit inputs inside the tensor core) 5e-3, fp32 1e-4, fp64 1e-10,
// int8 0 (integer sums are exact).
double gemm_tolerance(GemmDtype dtype);

// Storage formats decoded exactly (no rounding: every value of these formats is a double).
double decode_bf16(std::uint16_t bits);
double decode_fp16(std::uint16_t bits);
double decode_e4m3(std::uint8_t bits);  // OCP FP8 E4M3: bias 7, no infinities, S.1111.111 NaN
// Element `index` of an input (A/B) or output (D) buffer of the dtype, as stored by the GPU.
double decode_input(GemmDtype dtype, const unsigned char* data, std::size_t index);
double decode_output(GemmDtype dtype, const unsigned char* data, std::size_t index);

// Sampled rows/columns of D: first, last and pseudo-random ones between (deterministic).
std::vector<std::int64_t> sample_indices(std::int64_t extent, int count, std::uint64_t seed);

// What the device copied back for one check. Layout is the one the runner uses (TN, the
// cuBLASLt fast path): row i of A is contiguous (k elements), as is column j of B.
struct GemmSample {
  GemmDtype dtype = GemmDtype::bf16;
  GemmShape shape;
  std::vector<std::int64_t> rows;      // sampled i
  std::vector<std::int64_t> cols;      // sampled j
  std::vector<unsigned char> a_rows;   // rows.size() x k input elements
  std::vector<unsigned char> b_cols;   // cols.size() x k input elements
  std::vector<unsigned char> d_values; // D(rows[r], cols[c]) at [c * rows.size() + r]
  double scale = 1.0;                  // alpha x scale_a x scale_b
};

struct GemmCheckResult {
  bool passed = false;
  double max_rel_error = 0;
  double tolerance = 0;
  std::int64_t worst_row = -1;
  std::int64_t worst_col = -1;
  std::string detail;  // why it failed: "D(12,40) = 3.5, reference 1.25; 1 NaN"
};

GemmCheckResult check_gemm_sample(const GemmSample& sample);

}  // namespace pipecheck
