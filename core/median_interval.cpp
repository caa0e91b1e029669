// The median's confidence interval from order statistics.
#include "core/median_interval.hpp"

#include <algorithm>
#include <cmath>

namespace pipecheck {

namespace {

constexpr double kCoverage = 0.95;

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

}  // namespace

double binomial_half_cdf(int n, int k) {
  if (k < 0) return 0.0;
  if (k >= n) return 1.0;
  // Terms C(n, j) / 2^n in logs, so thousands of repetitions neither overflow nor underflow.
  long double total = 0;
  for (int j = 0; j <= k; ++j) {
    total += std::exp(std::lgamma(n + 1.0L) - std::lgamma(j + 1.0L) - std::lgamma(n - j + 1.0L) -
                      n * std::log(2.0L));
  }
  return static_cast<double>(std::min<long double>(1.0L, total));
}

std::optional<MedianInterval> median_interval(std::vector<double> values) {
  const int n = static_cast<int>(values.size());
  if (n < 2) return std::nullopt;
  std::sort(values.begin(), values.end());
  // The largest k (1-based) whose interval [x_k, x_(n+1-k)] still covers >= 95%.
  int k = 1;
  while (k + 1 <= (n + 1) / 2 && 1.0 - 2.0 * binomial_half_cdf(n, k) >= kCoverage) ++k;
  MedianInterval interval;
  interval.low = values[k - 1];
  interval.high = values[n - k];
  interval.coverage = 1.0 - 2.0 * binomial_half_cdf(n, k - 1);
  return interval;
}

std::optional<double> median_noise_percent(const std::vector<double>& values) {
  const auto interval = median_interval(values);
  if (!interval) return std::nullopt;
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const double median = median_of_sorted(sorted);
  if (median == 0 || !std::isfinite(median)) return std::nullopt;
  return 100.0 * (interval->high - interval->low) / 2.0 / std::fabs(median);
}

}  // namespace pipecheck
