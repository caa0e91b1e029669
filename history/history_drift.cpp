// Change points in a node's own series (see history_drift.hpp for the rules).
#include "history/history_drift.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "compare/compare.hpp"
#include "compare/rank_test.hpp"
#include "core/measurement.hpp"

namespace pipecheck {

namespace {

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double sse(const std::vector<double>& x, int from, int to) {
  double mean = 0;
  for (int i = from; i < to; ++i) mean += x[static_cast<std::size_t>(i)];
  mean /= std::max(1, to - from);
  double s = 0;
  for (int i = from; i < to; ++i) s += std::pow(x[static_cast<std::size_t>(i)] - mean, 2);
  return s;
}

// Least squares of x = a + b * max(0, i - s + 1): flat, then a straight slide from run s on.
double hinge_sse(const std::vector<double>& x, int s) {
  const int n = static_cast<int>(x.size());
  double mt = 0, mx = 0;
  for (int i = 0; i < n; ++i) {
    mt += std::max(0, i - s + 1);
    mx += x[static_cast<std::size_t>(i)];
  }
  mt /= n;
  mx /= n;
  double stt = 0, stx = 0, sxx = 0;
  for (int i = 0; i < n; ++i) {
    const double t = std::max(0, i - s + 1) - mt;
    const double d = x[static_cast<std::size_t>(i)] - mx;
    stt += t * t;
    stx += t * d;
    sxx += d * d;
  }
  return stt > 0 ? sxx - stx * stx / stt : sxx;
}

std::vector<double> slice(const std::vector<double>& x, int from, int to) {
  return {x.begin() + from, x.begin() + to};
}

std::string figure(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

std::string percent(double v, bool sign = false) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, sign ? "%+.1f%%" : "%.1f%%", v);
  return buffer;
}

std::string p_text(double p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, p < 0.001 ? "%.1e" : "%.3f", p);
  return buffer;
}

double point_noise(const SeriesPoint& point) {
  if (point.noise_percent) return *point.noise_percent;
  if (point.repetitions.size() < 2) return 0;
  Measurement m;
  m.repetitions = point.repetitions;
  m.stats = summarize(point.repetitions);
  attach_spread(m);
  return m.noise_percent.value_or(0);
}

struct Pending {
  Drift drift;
  double p_search = 1;
  bool big_enough = false;
};

std::string link_text(const HistoryLink& link) {
  auto gts = [](const std::optional<double>& g) { return g ? figure(*g) + " GT/s" : std::string("?"); };
  auto width = [](const std::optional<int>& w) { return w ? "x" + std::to_string(*w) : std::string("x?"); };
  return gts(link.current_gts) + " " + width(link.current_width) + " of " + gts(link.max_gts) + " " +
         width(link.max_width);
}

}  // namespace

std::optional<ChangeCandidate> best_change_point(const std::vector<SeriesPoint>& series, const DriftOptions& options) {
  const int n = static_cast<int>(series.size());
  if (n < options.min_runs_before + options.min_runs_after) return std::nullopt;
  std::vector<double> x;
  for (const auto& p : series) x.push_back(p.median);
  double best_sse = std::numeric_limits<double>::infinity();
  ChangeCandidate best;
  int tried = 0;
  for (int s = options.min_runs_before; s <= n - options.min_runs_after; ++s) {
    ++tried;
    const double step = sse(x, 0, s) + sse(x, s, n);
    const double slide = hinge_sse(x, s);
    // A step is preferred on a tie: the simpler story.
    if (step < best_sse) {
      best_sse = step;
      best.start = s;
      best.kind = "step";
    }
    if (slide < best_sse * (1 - 1e-9)) {
      best_sse = slide;
      best.start = s;
      best.kind = "slide";
    }
  }
  best.p_value = mann_whitney(slice(x, 0, best.start), slice(x, best.start, n)).p_value;
  best.p_search = std::min(1.0, best.p_value * tried);
  return best;
}

DriftAnalysis find_drifts(const std::vector<HistoryRun>& runs, const DriftOptions& options) {
  DriftAnalysis analysis;
  // host, command, mode, key -> the series (runs are oldest first).
  struct Series {
    std::string host, key, what, unit;
    std::vector<SeriesPoint> points;
    int busy = 0;
  };
  std::map<std::tuple<std::string, std::string, std::string, std::string>, Series> all;
  for (const auto& run : runs) {
    for (const auto& m : run.measurements) {
      Series& s = all[{run.host, run.command, run.mode, m.key}];
      s.host = run.host;
      s.key = m.key;
      s.what = m.what;
      s.unit = m.unit;
      if (m.other_cpu_percent && *m.other_cpu_percent > options.busy_cpu_percent) {
        ++s.busy;
        continue;
      }
      s.points.push_back({run.id, run.started_utc, m.stats.median, m.repetitions, m.noise_percent});
    }
  }

  std::vector<Pending> pending;
  for (const auto& [id, s] : all) {
    ++analysis.series;
    analysis.points_busy += s.busy;
    const auto change = best_change_point(s.points, options);
    if (!change) {
      ++analysis.series_too_short;
      continue;
    }
    const int n = static_cast<int>(s.points.size());
    const int start = change->start;
    std::vector<double> medians, before_reps, after_reps, noises;
    for (int i = 0; i < n; ++i) {
      const auto& p = s.points[static_cast<std::size_t>(i)];
      medians.push_back(p.median);
      auto& side = i < start ? before_reps : after_reps;
      side.insert(side.end(), p.repetitions.begin(), p.repetitions.end());
      noises.push_back(point_noise(p));
    }
    const std::vector<double> before = slice(medians, 0, start);
    Pending item;
    Drift& d = item.drift;
    d.host = s.host;
    d.key = s.key;
    d.what = s.what;
    d.unit = s.unit;
    d.kind = change->kind;
    d.start_index = start;
    d.started_utc = s.points[static_cast<std::size_t>(start)].started_utc;
    d.started_run = s.points[static_cast<std::size_t>(start)].run_id;
    d.runs_before = start;
    d.runs_after = n - start;
    d.before_median = median_of(before);
    d.after_median = change->kind == "step" ? median_of(slice(medians, start, n))
                                            : median_of(slice(medians, n - options.min_runs_after, n));
    d.size_percent = d.before_median != 0 ? (d.after_median - d.before_median) / std::abs(d.before_median) * 100 : 0;
    d.direction = d.size_percent < 0 ? "down" : "up";
    d.worse = (d.size_percent < 0) == higher_is_better(d.unit);
    d.noise_percent = median_of(noises);
    std::vector<double> deviations;
    for (const double v : before) deviations.push_back(std::abs(v - d.before_median));
    d.spread_percent = d.before_median != 0 ? 1.4826 * median_of(deviations) / std::abs(d.before_median) * 100 : 0;
    d.p_value = change->p_value;
    d.repetitions_p = before_reps.empty() || after_reps.empty() ? change->p_value
                                                                  : mann_whitney(before_reps, after_reps).p_value;
    d.excluded_busy = s.busy;
    item.p_search = change->p_search;
    const double needed = std::max({options.threshold_percent, 2 * d.noise_percent, 2 * d.spread_percent});
    item.big_enough = std::abs(d.size_percent) >= needed && d.repetitions_p <= options.family_alpha;
    pending.push_back(std::move(item));
  }

  // Holm across every series examined (too-short ones could not have been called).
  std::vector<std::size_t> order(pending.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pending[a].p_search < pending[b].p_search; });
  const double m = static_cast<double>(pending.size());
  double running = 0;
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    Pending& item = pending[order[rank]];
    running = std::max(running, std::min(1.0, (m - static_cast<double>(rank)) * item.p_search));
    item.drift.adjusted_p = running;
  }
  for (auto& item : pending) {
    Drift& d = item.drift;
    if (!item.big_enough || d.adjusted_p > options.family_alpha) continue;
    d.evidence = d.kind + " " + d.direction + " " + percent(d.size_percent, true) + " from run " +
                 std::to_string(d.start_index + 1) + " (" + d.started_utc + "): median " + figure(d.before_median) +
                 " -> " + figure(d.after_median) + " " + d.unit + " over " + std::to_string(d.runs_before) + " + " +
                 std::to_string(d.runs_after) + " runs; noise " + percent(d.noise_percent) + ", spread " +
                 percent(d.spread_percent) + "; rank test p " + p_text(d.p_value) + " (adjusted " +
                 p_text(d.adjusted_p) + "), repetitions p " + p_text(d.repetitions_p);
    analysis.drifts.push_back(d);
  }

  // Links that trained below their maximum in some runs but not in others.
  struct LinkSeries {
    int total = 0, low = 0;
    std::string first_low_utc, last_low_utc, example;
    std::int64_t first_low_run = 0;
    int first_low_index = 0;
  };
  std::map<std::pair<std::string, std::string>, LinkSeries> links;
  std::map<std::string, int> host_runs;
  for (const auto& run : runs) {
    const int index = host_runs[run.host]++;
    for (const auto& link : run.links) {
      LinkSeries& l = links[{run.host, link.device}];
      ++l.total;
      if (!link.downtrained) continue;
      if (l.low++ == 0) {
        l.first_low_utc = run.started_utc;
        l.first_low_run = run.id;
        l.first_low_index = index;
        l.example = link_text(link);
      }
      l.last_low_utc = run.started_utc;
    }
  }
  for (const auto& [id, l] : links) {
    if (l.low == 0 || l.low == l.total) continue;
    Drift d;
    d.host = id.first;
    d.key = id.second;
    d.what = "PCIe link " + id.second;
    d.kind = "link";
    d.direction = "down";
    d.started_utc = l.first_low_utc;
    d.started_run = l.first_low_run;
    d.start_index = l.first_low_index;
    d.flagged_runs = l.low;
    d.total_runs = l.total;
    d.size_percent = 100.0 * l.low / l.total;
    d.evidence = "trained below its maximum in " + std::to_string(l.low) + " of " + std::to_string(l.total) +
                 " runs (" + percent(d.size_percent) + "), first " + l.first_low_utc + ", last " + l.last_low_utc +
                 " (e.g. " + l.example + ")";
    analysis.drifts.push_back(d);
  }
  std::stable_sort(analysis.drifts.begin(), analysis.drifts.end(), [](const Drift& a, const Drift& b) {
    return std::tie(a.host, a.key) < std::tie(b.host, b.key);
  });
  return analysis;
}

}  // namespace pipecheck
