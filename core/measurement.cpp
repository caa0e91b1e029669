// Statistics over repetitions: median with min and max beside it, and how sure the median is.
#include "core/measurement.hpp"

#include <algorithm>

namespace pipecheck {

Statistics summarize(std::vector<double> samples) {
  Statistics stats;
  if (samples.empty()) return stats;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  stats.samples = static_cast<int>(n);
  stats.min = samples.front();
  stats.max = samples.back();
  stats.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
  return stats;
}

void attach_spread(Measurement& m) {
  m.median_interval = median_interval(m.repetitions);
  m.noise_percent = median_noise_percent(m.repetitions);
}

}  // namespace pipecheck
