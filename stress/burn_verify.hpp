// Host-side verification of burn results: counting wrong elements against the reference (what
// the device compare kernel does, here for tests and small checks) and checking the reference
// itself against an independent FP64 dot product.
#pragma once

#include <cstdint>
#include <span>

namespace pipecheck {

// Elements of `result` that burn_result_wrong() calls wrong against `reference` (sizes must
// match; extra elements of the longer one count as wrong).
std::uint64_t count_wrong_results(std::span<const float> result, std::span<const float> reference,
                                  double tolerance);
std::uint64_t count_wrong_results(std::span<const double> result,
                                  std::span<const double> reference, double tolerance);
// Words of a memory-test read-back that differ from memtest_word(pattern, first_index + i).
std::uint64_t count_memtest_errors(std::span<const std::uint32_t> words, int pattern,
                                   std::uint64_t first_index);

// Whether a GEMM element is right compared with an exact dot product: within `tolerance` of the
// sum of |a_k x b_k| (the error bound of a length-n sum, independent of cancellation).
bool reference_element_ok(double element, double exact_dot, double abs_dot, double tolerance);

// Tolerance of the reference spot check per input type: the inputs are the same on both sides,
// only the accumulation (FP32 in cuBLAS vs FP64 here) and TF32's rounding of FP32 inputs differ.
double reference_tolerance(const char* dtype);

}  // namespace pipecheck
