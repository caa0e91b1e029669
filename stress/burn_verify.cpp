// Counting wrong burn results and memory-test errors on the host.
#include "stress/burn_verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "stress/verify_rule.hpp"

namespace pipecheck {

namespace {

template <typename T>
std::uint64_t count_wrong(std::span<const T> result, std::span<const T> reference, double tolerance) {
  const std::size_t common = std::min(result.size(), reference.size());
  std::uint64_t wrong = std::max(result.size(), reference.size()) - common;
  for (std::size_t i = 0; i < common; ++i) {
    if (burn_result_wrong(result[i], reference[i], tolerance)) ++wrong;
  }
  return wrong;
}

template <typename T>
std::uint64_t count_bits_differing(std::span<const T> result, std::span<const T> reference, std::size_t* first) {
  const std::size_t common = std::min(result.size(), reference.size());
  std::uint64_t differing = std::max(result.size(), reference.size()) - common;
  bool found = false;
  for (std::size_t i = 0; i < common; ++i) {
    if (std::memcmp(&result[i], &reference[i], sizeof(T)) != 0 || result[i] != result[i]) {
      if (!found && first) *first = i;
      found = true;
      ++differing;
    }
  }
  if (!found && differing && first) *first = common;
  return differing;
}

}  // namespace

std::uint64_t count_differing(std::span<const double> result, std::span<const double> reference,
                              std::size_t* first) {
  return count_bits_differing(result, reference, first);
}

std::uint64_t count_differing(std::span<const float> result, std::span<const float> reference,
                              std::size_t* first) {
  return count_bits_differing(result, reference, first);
}

long double recurrence_closed_form(long double x0, long double a, long double b, std::uint64_t n) {
  const long double fixed_point = b / (1.0L - a);
  return fixed_point + (x0 - fixed_point) * std::pow(a, static_cast<long double>(n));
}

long double recurrence_error_bound(long double x0, long double a, long double b, std::uint64_t n,
                                   long double unit_roundoff, bool fused) {
  const long double fixed_point = b / (1.0L - a);
  const long double largest = std::max(std::fabs(x0), std::fabs(fixed_point));
  const long double damped_steps = (1.0L - std::pow(a, static_cast<long double>(n))) / (1.0L - a);
  const long double roundings = fused ? 1.0L : 2.0L;
  // The closed form in long double: a^n and the fixed point to about 1e-15 relative at worst.
  const long double closed_form_error = 1e-14L * largest;
  return 4.0L * roundings * unit_roundoff * largest * damped_steps + closed_form_error;
}

std::uint64_t count_wrong_results(std::span<const float> result, std::span<const float> reference,
                                  double tolerance) {
  return count_wrong(result, reference, tolerance);
}

std::uint64_t count_wrong_results(std::span<const double> result,
                                  std::span<const double> reference, double tolerance) {
  return count_wrong(result, reference, tolerance);
}

std::uint64_t count_memtest_errors(std::span<const std::uint32_t> words, int pattern,
                                   std::uint64_t first_index) {
  std::uint64_t errors = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] != memtest_word(pattern, first_index + i)) ++errors;
  }
  return errors;
}

bool reference_element_ok(double element, double exact_dot, double abs_dot, double tolerance) {
  const double difference = element > exact_dot ? element - exact_dot : exact_dot - element;
  return difference <= tolerance * std::max(abs_dot, 1e-30);
}

double reference_tolerance(const char* dtype) {
  if (std::strcmp(dtype, "fp64") == 0) return 1e-10;
  if (std::strcmp(dtype, "tf32") == 0) return 4e-3;  // 10-bit mantissa inputs
  return 1e-3;  // FP32 accumulation: about n x 2^-24 of the absolute sum at worst
}

}  // namespace pipecheck
