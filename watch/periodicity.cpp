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

namespace {

// The level a busy sample reaches: the median of those above idle (0 when none is).
double busy_level_of(const std::vector<double>& values, double idle_below) {
  std::vector<double> busy;
  for (double v : values) {
    if (v > idle_below) busy.push_back(v);
  }
  return median_of(busy);
}

// The share of a sample's interval spent idle: 1 at or below idle_below, else how far below the
// busy level it fell.
std::vector<double> idle_shares(const std::vector<double>& values, double idle_below, double busy) {
  std::vector<double> shares;
  for (double v : values) {
    shares.push_back(v <= idle_below ? 1.0 : busy > 0 ? std::clamp((busy - v) / busy, 0.0, 1.0) : 0.0);
  }
  return shares;
}

}  // namespace

std::vector<IdleEpisode> idle_episodes(const std::vector<double>& times, const std::vector<double>& values,
                                       const PeriodicityOptions& options) {
  std::vector<IdleEpisode> episodes;
  const std::size_t n = std::min(times.size(), values.size());
  if (n < 3) return episodes;
  const std::vector<double> share = idle_shares(values, options.idle_below, busy_level_of(values, options.idle_below));
  const auto mostly = [&](std::size_t k) { return share[k] >= options.mostly_idle; };
  const auto step = [&](std::size_t k) { return times[k] - times[k - 1]; };
  std::size_t i = 0;
  while (i < n && mostly(i)) ++i;  // idle before the first busy sample: start-up
  std::size_t taken = i;           // samples before this belong to an episode already (or start-up)
  while (i < n) {
    if (!mostly(i)) {
      ++i;
      continue;
    }
    std::size_t first = i;
    bool fully = false;  // a dip that never reaches idle is a slow stretch, not a stall
    for (; i < n && mostly(i); ++i) {
      if (values[i] <= options.idle_below) fully = true;
    }
    if (i == n) break;  // idle to the end: shut-down, not an episode
    if (!fully) continue;
    std::size_t last = i - 1;
    // The partly idle neighbours: the stall began within the one before, ended within the one after.
    const bool lead = first - 1 >= taken && first >= 2 && share[first - 1] >= options.edge_idle;
    const bool trail = i + 1 < n && share[i] >= options.edge_idle;
    if (lead) --first;
    if (trail) last = i;
    IdleEpisode e;
    e.onset_s = times[first] - share[first] * step(first);
    for (std::size_t k = first; k <= last; ++k) e.idle_s += share[k] * step(k);
    e.start_s = times[first - 1];
    e.end_s = times[last];
    episodes.push_back(e);
    taken = last + 1;
    i = last + 1;
  }
  return episodes;
}

Periodicity find_periodic_idle(const std::vector<double>& times, const std::vector<double>& values,
                               const PeriodicityOptions& options) {
  Periodicity result;
  result.idle = idle_episodes(times, values, options);
  result.episodes = static_cast<int>(result.idle.size());
  result.busy_level = busy_level_of(values, options.idle_below);
  if (times.size() < 2) return result;
  double idle_s = 0;
  for (const auto& e : result.idle) idle_s += e.idle_s;
  result.idle_share = idle_s / (times.back() - times.front());
  result.mean_idle_s = result.idle.empty() ? 0 : idle_s / static_cast<double>(result.idle.size());
  if (result.episodes < options.min_episodes) return result;
  std::vector<double> gaps;
  for (std::size_t k = 1; k < result.idle.size(); ++k) gaps.push_back(result.idle[k].onset_s - result.idle[k - 1].onset_s);
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
