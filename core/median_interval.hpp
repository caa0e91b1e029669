// How sure a median of repetitions is: the distribution-free confidence interval of the median
// (order statistics, no assumption about the shape of the noise) and the noise figure the
// stopping rule, the judge and compare share: half that interval's width in % of the median.
#pragma once

#include <optional>
#include <vector>

namespace pipecheck {

struct MedianInterval {
  double low = 0;
  double high = 0;
  // The chance the interval holds the true median: 1 - 2 P(Binomial(n, 1/2) < k) for the order
  // statistics k and n + 1 - k. At least 0.95 from 6 repetitions on; below that [min, max],
  // whose coverage is 1 - 2^(1-n) (0.9375 for 5, 0.75 for 3).
  double coverage = 0;
};

// The narrowest order-statistic interval covering the median with at least 95%, else [min,
// max]; nullopt for fewer than 2 values.
std::optional<MedianInterval> median_interval(std::vector<double> values);

// Half the interval's width in % of |median|: 100 x (high - low) / 2 / |median|. nullopt for
// fewer than 2 values or a median of 0.
std::optional<double> median_noise_percent(const std::vector<double>& values);

// P(Binomial(n, 1/2) <= k), exact for any n a benchmark runs.
double binomial_half_cdf(int n, int k);

}  // namespace pipecheck
