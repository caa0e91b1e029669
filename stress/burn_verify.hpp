// Host-side verification of burn results: counting wrong elements against the reference (what
// the device compare kernel does, here for tests and small checks), checking the GPU reference
// itself against an independent FP64 dot product, and the CPU burn's checks: results bit for
// bit against their reference, the reference against the recurrence's closed form.
#pragma once

#include <cstddef>
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

// Elements of `result` whose bits differ from `reference` (the CPU burn's check: the same
// inputs and the same correctly rounded operations give the same bits on a healthy CPU; NaN
// never equals anything). *first gets the first such index when there is one.
std::uint64_t count_differing(std::span<const double> result, std::span<const double> reference,
                              std::size_t* first = nullptr);
std::uint64_t count_differing(std::span<const float> result, std::span<const float> reference,
                              std::size_t* first = nullptr);

// The CPU burn's recurrence x <- x * a + b after n steps, exactly (in long double): the fixed
// point p = b / (1 - a), plus (x0 - p) x a^n. For 0 < a < 1.
long double recurrence_closed_form(long double x0, long double a, long double b, std::uint64_t n);
// How far n rounded steps may drift from the closed form: every step rounds once (fused) or
// twice, each time by at most unit_roundoff x the largest |x| on the way (x moves monotonically
// from x0 towards p), and each step shrinks the older errors by a. Four times that bound, plus
// the closed form's own error.
long double recurrence_error_bound(long double x0, long double a, long double b, std::uint64_t n,
                                   long double unit_roundoff, bool fused);

// Whether a GEMM element is right compared with an exact dot product: within `tolerance` of the
// sum of |a_k x b_k| (the error bound of a length-n sum, independent of cancellation).
bool reference_element_ok(double element, double exact_dot, double abs_dot, double tolerance);

// Tolerance of the reference spot check per input type: the inputs are the same on both sides,
// only the accumulation (FP32 in cuBLAS vs FP64 here) and TF32's rounding of FP32 inputs differ.
double reference_tolerance(const char* dtype);

}  // namespace pipecheck
