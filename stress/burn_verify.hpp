// Host-side verification of burn results: counting wrong elements against the reference (what
// the device compare kernel does, here for tests and small checks) and checking the reference
// itself against an independent FP64 dot product.
#pragma once

#include <cstdint>
#include <span>
#include <string>

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

// What a check found, for naming it: how many are wrong and the first (lowest index) of them.
struct BurnCheck {
  std::uint64_t wrong = 0;
  std::uint64_t first_index = ~std::uint64_t{0};
  double value = 0;      // what the first wrong element held
  double reference = 0;  // what it should have held
};
// The host replay of the device compare kernel (compare_results in gpu_burn.cu, the same rule).
BurnCheck check_results(std::span<const float> result, std::span<const float> reference, double tolerance);
BurnCheck check_results(std::span<const double> result, std::span<const double> reference, double tolerance);
// The host replay of the memory test's check (memtest_check in gpu_burn.cu).
BurnCheck check_memtest(std::span<const std::uint32_t> words, int pattern, std::uint64_t first_index);

// An element of an n x n column-major result: "row 3, column 17" (cuBLAS's layout).
std::string result_element_text(std::uint64_t index, int n);
// "3 wrong, first at row 3, column 17: 1.5, the reference's 1.25" (value and reference said
// when known, `with_values`).
std::string describe_wrong_results(const BurnCheck& check, int n, bool with_values);
// "2 words wrong, first word 321 (byte 1284) of the tested memory reads 0x..., pattern 2 wrote 0x...".
std::string describe_memtest_errors(const BurnCheck& check, int pattern);

// Whether a GEMM element is right compared with an exact dot product: within `tolerance` of the
// sum of |a_k x b_k| (the error bound of a length-n sum, independent of cancellation).
bool reference_element_ok(double element, double exact_dot, double abs_dot, double tolerance);

// Tolerance of the reference spot check per input type: the inputs are the same on both sides,
// only the accumulation (FP32 in cuBLAS vs FP64 here) and TF32's rounding of FP32 inputs differ.
double reference_tolerance(const char* dtype);

}  // namespace pipecheck
