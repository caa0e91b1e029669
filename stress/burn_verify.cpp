// Counting wrong burn results and memory-test errors on the host.
#include "stress/burn_verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "stress/verify_rule.hpp"

namespace pipecheck {

namespace {

template <typename T>
BurnCheck check(std::span<const T> result, std::span<const T> reference, double tolerance) {
  const std::size_t common = std::min(result.size(), reference.size());
  BurnCheck found;
  for (std::size_t i = 0; i < common; ++i) {
    if (!burn_result_wrong(result[i], reference[i], tolerance)) continue;
    if (found.wrong++ == 0) found = {1, i, static_cast<double>(result[i]), static_cast<double>(reference[i])};
  }
  // A missing or extra element is wrong too.
  const std::size_t extra = std::max(result.size(), reference.size()) - common;
  if (extra > 0 && found.wrong == 0) found.first_index = common;
  found.wrong += extra;
  return found;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string hex_word(std::uint32_t word) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", word);
  return text;
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

BurnCheck check_results(std::span<const float> result, std::span<const float> reference, double tolerance) {
  return check(result, reference, tolerance);
}

BurnCheck check_results(std::span<const double> result, std::span<const double> reference, double tolerance) {
  return check(result, reference, tolerance);
}

BurnCheck check_memtest(std::span<const std::uint32_t> words, int pattern, std::uint64_t first_index) {
  BurnCheck found;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::uint32_t expected = memtest_word(pattern, first_index + i);
    if (words[i] == expected) continue;
    if (found.wrong++ == 0) found = {1, first_index + i, static_cast<double>(words[i]), static_cast<double>(expected)};
  }
  return found;
}

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
  return check(result, reference, tolerance).wrong;
}

std::uint64_t count_wrong_results(std::span<const double> result,
                                  std::span<const double> reference, double tolerance) {
  return check(result, reference, tolerance).wrong;
}

std::uint64_t count_memtest_errors(std::span<const std::uint32_t> words, int pattern,
                                   std::uint64_t first_index) {
  return check_memtest(words, pattern, first_index).wrong;
}

std::string result_element_text(std::uint64_t index, int n) {
  const auto size = static_cast<std::uint64_t>(n > 0 ? n : 1);
  return "row " + std::to_string(index % size) + ", column " + std::to_string(index / size);
}

std::string describe_wrong_results(const BurnCheck& check, int n, bool with_values) {
  if (check.wrong == 0) return "";
  std::string text = std::to_string(check.wrong) + " wrong, first at " + result_element_text(check.first_index, n);
  if (with_values) text += ": " + number(check.value) + ", the reference's " + number(check.reference);
  return text;
}

std::string describe_memtest_errors(const BurnCheck& check, int pattern) {
  if (check.wrong == 0) return "";
  return std::to_string(check.wrong) + (check.wrong == 1 ? " word" : " words") + " wrong, first word " +
         std::to_string(check.first_index) + " (byte " + std::to_string(4 * check.first_index) +
         ") of the tested memory reads " + hex_word(static_cast<std::uint32_t>(check.value)) + ", pattern " +
         std::to_string(pattern) + " wrote " + hex_word(static_cast<std::uint32_t>(check.reference));
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
