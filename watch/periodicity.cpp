// Idle episodes and their period.
#include "watch/periodicity.hpp"

#include <algorithm>
#include <cmath>

namespace pipecheck {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2) return upper;
  return (upper + *std::max_element(values.begin(), values.begin() + static_cast<long>(mid))) / 2;
}

std::vector<IdleEpisode> idle_episodes(const std::vector<double>& times, const std::vector<double>& values,
                                       double idle_below) {
  std::vector<IdleEpisode> episodes;
  const std::size_t n = std::min(times.size(), values.size());
  std::size_t i = 0;
  while (i < n && values[i] <= idle_below) ++i;  // idle before the first busy sample: start-up
  while (i < n) {
    if (values[i] > idle_below) {
      ++i;
      continue;
    }
    const std::size_t first = i;
    while (i < n && values[i] <= idle_below) ++i;
    if (i == n) break;  // idle to the end: shut-down, not an episode
    episodes.push_back({times[first - 1], times[i - 1]});
  }
  return episodes;
}

Periodicity find_periodic_idle(const std::vector<double>& times, const std::vector<double>& values,
                               const PeriodicityOptions& options) {
  Periodicity result;
  result.idle = idle_episodes(times, values, options.idle_below);
  result.episodes = static_cast<int>(result.idle.size());
  if (times.size() < 2) return result;
  double idle_s = 0;
  for (const auto& e : result.idle) idle_s += e.end_s - e.start_s;
  result.idle_share = idle_s / (times.back() - times.front());
  result.mean_idle_s = result.idle.empty() ? 0 : idle_s / static_cast<double>(result.idle.size());
  if (result.episodes < options.min_episodes) return result;
  std::vector<double> gaps;
  for (std::size_t k = 1; k < result.idle.size(); ++k) gaps.push_back(result.idle[k].start_s - result.idle[k - 1].start_s);
  std::vector<double> steps;
  for (std::size_t k = 1; k < times.size(); ++k) steps.push_back(times[k] - times[k - 1]);
  result.period_s = median_of(gaps);
  const double step = median_of(steps);
  // Idle samples at random also come back every few samples, at irregular gaps: with few gaps
  // (idle at random 30% of a 30 s run looked periodic half the time with 3 episodes and a
  // 1.5-sample tolerance) a period needs several samples, and every gap must be regular.
  if (result.period_s < options.min_period_samples * step) return result;
  // Sampling quantizes every gap to whole samples: allow one of them however short the period.
  const double tolerance = std::max(options.tolerance_share * result.period_s, step);
  const auto regular = std::count_if(gaps.begin(), gaps.end(),
                                     [&](double gap) { return std::fabs(gap - result.period_s) <= tolerance; });
  const double needed = gaps.size() < 4 ? 1.0 : options.regular_share;
  result.found = static_cast<double>(regular) >= needed * static_cast<double>(gaps.size());
  return result;
}

}  // namespace pipecheck
