// Comparing two runs measurement by measurement, and the rules that say which changes are real.
//
// The rank test (runs that kept every repetition, report.json version 2). A change is called
// when all of these hold:
//   1. a two-sided Mann-Whitney U test on the two runs' repetitions says the two could hardly
//      come from one distribution: exact for up to 60 repetitions in all (compare/rank_test);
//   2. that holds after controlling the false-discovery rate across all the cases of the
//      comparison (Benjamini-Hochberg, q <= 0.05), so comparing 40 cases does not find one
//      regression by chance every time;
//   3. the medians moved by at least threshold_percent (3%) and by more than the measured noise
//      (the two medians' noise, core/median_interval, together: sqrt(a^2 + b^2)).
// Repetitions too few for any p to reach 0.05 (3 vs 3 gives at best 0.1) are said so, "too few
// repetitions to tell: n=3 vs 3", never called a regression; a change that large in the wrong
// direction makes the comparison inconclusive (exit 4).
//
// The range rule (runs recorded before repetitions were kept: median, min, max and count only).
// A change counts as beyond noise when the two [min, max] ranges are disjoint (the Mann-Whitney
// U statistic at its extreme, U = 0, whose exact two-sided chance under "no change" is
// 2 / C(n1 + n2, n1)), that chance is at most max_p_value (0.1), and the median moved by at
// least threshold_percent.
//
// Conditions: a probe that ran while other processes used more than busy_cpu_percent of one
// core (in either run) is not comparable unless forced; a change there that would have been a
// regression makes the comparison inconclusive.
#include "compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/json_records.hpp"
#include "compare/rank_test.hpp"

namespace pipecheck {

using nlohmann::json;

namespace {

std::string percent_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g%%", value);
  return text;
}

// True when the ranges are disjoint, however the runs are ordered.
bool ranges_disjoint(const Statistics& a, const Statistics& b) {
  return a.max < b.min || b.max < a.min;
}

std::string p_text(double p) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", p);
  return text;
}

std::string counts_words(int a, int b) { return "n=" + std::to_string(a) + " vs " + std::to_string(b); }

bool worse_direction(const MeasurementChange& change) {
  return change.change_percent && (change.higher_is_better ? *change.change_percent < 0 : *change.change_percent > 0);
}

// As large as a regression would have to be, in the wrong direction (the test aside).
bool large_and_worse(const MeasurementChange& change, const CompareOptions& options) {
  if (!worse_direction(change)) return false;
  const double size = std::fabs(*change.change_percent);
  return size >= options.threshold_percent && (!change.noise_percent || size > *change.noise_percent);
}

// The range rule: improved / regressed / unchanged for a key both runs measured in the same
// unit, from median, min, max and count.
void classify_by_ranges(MeasurementChange& change, const CompareOptions& options) {
  const Statistics& old_stats = *change.baseline;
  const Statistics& new_stats = *change.current;
  change.rule = "range rule";
  const double change_percent = *change.change_percent;
  change.ranges_disjoint = ranges_disjoint(old_stats, new_stats);
  if (!change.ranges_disjoint) {
    change.reason = "within noise: ranges overlap";
    return;
  }
  const double p = disjoint_ranges_p_value(old_stats.samples, new_stats.samples);
  change.p_value = p;
  if (p > options.max_p_value) {
    change.reason = "too few repetitions to tell: " + counts_words(old_stats.samples, new_stats.samples);
    if (large_and_worse(change, options)) {
      change.kind = ChangeKind::inconclusive;
      change.would_regress = true;
    }
    return;
  }
  if (std::fabs(change_percent) < options.threshold_percent) {
    change.reason = "below the " + percent_text(options.threshold_percent) + " threshold";
    return;
  }
  const bool better = change.higher_is_better ? change_percent > 0 : change_percent < 0;
  change.kind = better ? ChangeKind::improved : ChangeKind::regressed;
  change.reason = "beyond noise: ranges disjoint";
}

// The rank test's verdict once the comparison's q-value is known.
void classify_by_ranks(MeasurementChange& change, const CompareOptions& options) {
  const int n_a = change.baseline->samples, n_b = change.current->samples;
  const double size = std::fabs(*change.change_percent);
  change.kind = ChangeKind::unchanged;
  change.would_regress = false;
  const std::string test = "(Mann-Whitney, " + counts_words(n_a, n_b) + ")";
  if (smallest_p_value(n_a, n_b) > options.false_discovery_rate) {
    change.reason = "too few repetitions to tell: " + counts_words(n_a, n_b) + " (the smallest p they can give is " +
                    p_text(smallest_p_value(n_a, n_b)) + ", above " + p_text(options.false_discovery_rate) + ")";
    if (large_and_worse(change, options)) {
      change.kind = ChangeKind::inconclusive;
      change.would_regress = true;
    }
    return;
  }
  const std::string pq = "p = " + p_text(*change.p_value) + ", q = " + p_text(*change.q_value) + " " + test;
  if (*change.q_value > options.false_discovery_rate) {
    change.reason = "within noise: " + pq;
    return;
  }
  if (size < options.threshold_percent) {
    change.reason = "below the " + percent_text(options.threshold_percent) + " threshold (" + pq + ")";
    return;
  }
  if (change.noise_percent && size <= *change.noise_percent) {
    change.reason = "within the measured noise of " + percent_text(std::round(*change.noise_percent * 10) / 10) + " (" + pq + ")";
    return;
  }
  change.kind = worse_direction(change) ? ChangeKind::regressed : ChangeKind::improved;
  change.reason = "beyond noise: " + pq;
}

// Both runs kept their repetitions (at least 2 each): the rank test decides.
bool has_repetitions(const Measurement& m) { return m.repetitions.size() >= 2; }

// The change of the medians and which rule decides, for a key both runs measured in one unit.
void compare_both(MeasurementChange& change, const Measurement& baseline, const Measurement& current,
                  const CompareOptions& options) {
  const Statistics& old_stats = *change.baseline;
  if (old_stats.median == 0) {
    change.reason = "baseline median is 0: no relative change";
    return;
  }
  change.change_percent = 100.0 * (change.current->median - old_stats.median) / std::fabs(old_stats.median);
  if (!has_repetitions(baseline) || !has_repetitions(current)) {
    classify_by_ranges(change, options);
    return;
  }
  change.rule = "rank test";
  change.ranges_disjoint = ranges_disjoint(old_stats, *change.current);
  const auto a = median_noise_percent(baseline.repetitions), b = median_noise_percent(current.repetitions);
  if (a && b) change.noise_percent = std::sqrt(*a * *a + *b * *b);
  change.p_value = mann_whitney(baseline.repetitions, current.repetitions).p_value;
  change.q_value = change.p_value;  // one case alone; compare_reports adjusts over all of them
  classify_by_ranks(change, options);
}

// Why a run's probe is not comparable, or "" when it is.
std::string busy_text(const ProbeOutcome* probe, const std::string& which, const CompareOptions& options) {
  if (probe == nullptr || !probe->conditions || probe->conditions->other_cpu_percent <= options.busy_cpu_percent) return "";
  const RunConditions& c = *probe->conditions;
  std::string text = which + " run's " + probe->stage + " probe ran while other processes used " +
                     percent_text(std::round(c.other_cpu_percent)) + " of one core";
  if (!c.top_consumers.empty()) text += " (" + describe_consumers(c.top_consumers) + ")";
  return text + ", more than " + percent_text(options.busy_cpu_percent);
}

MeasurementChange describe(const Measurement& m) {
  MeasurementChange change;
  change.key = m.key;
  change.stage = m.stage;
  change.what = m.what;
  change.unit = m.unit;
  change.baseline_unit = m.unit;
  change.higher_is_better = higher_is_better(m.unit);
  return change;
}

std::map<std::string, const Measurement*> measurements_by_key(const Report& report) {
  std::map<std::string, const Measurement*> by_key;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) by_key[m.key] = &m;
  }
  return by_key;
}

std::map<std::string, const ProbeOutcome*> probes_by_key(const Report& report) {
  std::map<std::string, const ProbeOutcome*> by_key;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) by_key[m.key] = &probe;
  }
  return by_key;
}

// Benjamini-Hochberg over every case the rank test decided, then each decided again.
void control_false_discoveries(std::vector<MeasurementChange>& changes, const CompareOptions& options) {
  std::vector<MeasurementChange*> tested;
  std::vector<double> p_values;
  for (auto& c : changes) {
    if (c.rule == "rank test" && c.p_value) {
      tested.push_back(&c);
      p_values.push_back(*c.p_value);
    }
  }
  const std::vector<double> q = benjamini_hochberg(p_values);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    tested[i]->q_value = q[i];
    classify_by_ranks(*tested[i], options);
  }
}

// Changes of probes that ran under busy conditions are not called, unless forced.
void mark_busy(Comparison& comparison, const Report& baseline, const Report& current, const CompareOptions& options) {
  const auto before = probes_by_key(baseline), after = probes_by_key(current);
  std::set<std::string> noted;
  for (auto& c : comparison.changes) {
    if (!c.baseline || !c.current || c.kind == ChangeKind::incomparable) continue;
    const auto b = before.find(c.key), a = after.find(c.key);
    std::string why = busy_text(b == before.end() ? nullptr : b->second, "the baseline", options);
    const std::string now = busy_text(a == after.end() ? nullptr : a->second, "the current", options);
    if (!now.empty()) why += (why.empty() ? "" : "; ") + now;
    if (why.empty()) continue;
    if (options.force) {
      if (noted.insert(why).second) comparison.notes.push_back("forced: compared although " + why);
      continue;
    }
    const bool regression = c.kind == ChangeKind::regressed || c.would_regress || large_and_worse(c, options);
    c.kind = ChangeKind::incomparable;
    c.would_regress = regression;
    c.reason = "not comparable: " + why + " (--force compares anyway)";
    if (noted.insert(why).second) comparison.notes.push_back("not comparable: " + why + ": rerun on a quiet machine");
  }
}

RunLabel label_of(const Report& report) {
  return {"", report.host, report.started_utc, report.version};
}

// Why keys may be missing or figures differ for reasons other than the machine.
std::vector<std::string> context_notes(const Report& baseline, const Report& current) {
  std::vector<std::string> notes;
  if (baseline.host != current.host) {
    notes.push_back("different hosts: " + baseline.host + " (baseline) and " + current.host);
  }
  if (baseline.mode != current.mode) {
    notes.push_back("different modes: " + baseline.mode + " (baseline) and " + current.mode +
                    ": buffer sizes and repetitions differ");
  }
  std::map<std::string, ProbeStatus> before;
  for (const auto& probe : baseline.probes) before[probe.stage] = probe.status;
  for (const auto& probe : current.probes) {
    const auto it = before.find(probe.stage);
    if (it == before.end() || probe.status == ProbeStatus::ok || it->second != ProbeStatus::ok) continue;
    notes.push_back("probe " + probe.probe + " was ok in the baseline, now " +
                    to_string(probe.status) + (probe.reason.empty() ? "" : ": " + probe.reason));
  }
  return notes;
}

}  // namespace

const char* to_string(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::improved: return "improved";
    case ChangeKind::regressed: return "regressed";
    case ChangeKind::unchanged: return "unchanged";
    case ChangeKind::added: return "new";
    case ChangeKind::missing: return "missing";
    case ChangeKind::incomparable: return "incomparable";
    case ChangeKind::inconclusive: return "inconclusive";
  }
  return "unchanged";
}

bool higher_is_better(const std::string& unit) {
  static const std::set<std::string> time_units = {"ns", "us", "ms", "s", "min", "seconds"};
  return time_units.count(unit) == 0;
}

double disjoint_ranges_p_value(int n1, int n2) {
  if (n1 < 1 || n2 < 1) return 1.0;
  // C(n1 + n2, n1) as a product of ratios; exact enough for any repetition count.
  double combinations = 1.0;
  for (int i = 1; i <= n1; ++i) combinations = combinations * (n2 + i) / i;
  return std::min(1.0, 2.0 / combinations);
}

MeasurementChange compare_measurement(const Measurement* baseline, const Measurement* current,
                                      const CompareOptions& options) {
  if (current == nullptr) {
    MeasurementChange change = describe(*baseline);
    change.baseline = baseline->stats;
    change.kind = ChangeKind::missing;
    change.reason = "only in the baseline";
    return change;
  }
  MeasurementChange change = describe(*current);
  change.current = current->stats;
  if (baseline == nullptr) {
    change.kind = ChangeKind::added;
    change.reason = "only in the current run";
    return change;
  }
  change.baseline = baseline->stats;
  change.baseline_unit = baseline->unit;
  if (baseline->unit != current->unit) {
    change.kind = ChangeKind::incomparable;
    change.reason = "unit changed from " + baseline->unit + " to " + current->unit;
    return change;
  }
  compare_both(change, *baseline, *current, options);
  return change;
}

bool Comparison::inconclusive() const {
  return !has_regression() &&
         (nothing_compared() ||
          std::any_of(changes.begin(), changes.end(), [](const MeasurementChange& c) { return c.would_regress; }));
}

bool Comparison::nothing_compared() const {
  // Only in one run (new or missing) is not compared; incomparable (busy, another unit) was
  // looked at and said why.
  return std::none_of(changes.begin(), changes.end(), [](const MeasurementChange& c) {
    return c.kind != ChangeKind::added && c.kind != ChangeKind::missing;
  });
}

ExitCode Comparison::exit_code() const {
  if (has_regression()) return ExitCode::failed;
  return inconclusive() ? ExitCode::inconclusive : ExitCode::ok;
}

int Comparison::count(ChangeKind kind) const {
  return static_cast<int>(std::count_if(changes.begin(), changes.end(),
                                        [&](const MeasurementChange& c) { return c.kind == kind; }));
}

namespace {

// A measurement the current run lost because its probe failed there (crashed, timed out,
// printed garbage) is a regression, not a gap: the machine no longer runs what it ran. One lost
// to an interrupted probe could have been either: inconclusive.
void judge_lost(Comparison& comparison, const Report& baseline, const Report& current) {
  const auto baseline_probes = probes_by_key(baseline);
  for (auto& change : comparison.changes) {
    if (change.kind != ChangeKind::missing) continue;
    const auto was = baseline_probes.find(change.key);
    if (was == baseline_probes.end()) continue;
    for (const auto& probe : current.probes) {
      if (probe.probe != was->second->probe) continue;
      if (probe.status == ProbeStatus::failed) {
        change.kind = ChangeKind::regressed;
        change.reason = "its probe failed in the current run: " + probe.reason;
      } else if (probe.status == ProbeStatus::interrupted) {
        change.would_regress = true;
        change.reason = "its probe was interrupted in the current run";
      }
    }
  }
}

}  // namespace

Comparison compare_reports(const Report& baseline, const Report& current,
                           const CompareOptions& options) {
  Comparison comparison;
  comparison.baseline = label_of(baseline);
  comparison.current = label_of(current);
  comparison.options = options;
  comparison.notes = context_notes(baseline, current);
  const auto before = measurements_by_key(baseline);
  const auto after = measurements_by_key(current);
  for (const auto& [key, old_m] : before) {
    const auto it = after.find(key);
    comparison.changes.push_back(
        compare_measurement(old_m, it == after.end() ? nullptr : it->second, options));
  }
  for (const auto& [key, new_m] : after) {
    if (before.count(key) == 0) comparison.changes.push_back(compare_measurement(nullptr, new_m, options));
  }
  std::sort(comparison.changes.begin(), comparison.changes.end(),
            [](const MeasurementChange& a, const MeasurementChange& b) { return a.key < b.key; });
  control_false_discoveries(comparison.changes, options);
  judge_lost(comparison, baseline, current);
  mark_busy(comparison, baseline, current, options);
  return comparison;
}

namespace {

json optional_stats(const std::optional<Statistics>& stats) {
  return stats ? json(*stats) : json(nullptr);
}

json optional_number(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

json label_json(const RunLabel& label) {
  return json{{"source", label.source},
              {"host", label.host},
              {"started_utc", label.started_utc},
              {"version", label.version}};
}

json change_json(const MeasurementChange& c) {
  return json{{"key", c.key},
              {"stage", c.stage},
              {"what", c.what},
              {"unit", c.unit},
              {"baseline_unit", c.baseline_unit},
              {"baseline", optional_stats(c.baseline)},
              {"current", optional_stats(c.current)},
              {"change_percent", optional_number(c.change_percent)},
              {"higher_is_better", c.higher_is_better},
              {"ranges_disjoint", c.ranges_disjoint},
              {"rule", c.rule},
              {"p_value", optional_number(c.p_value)},
              {"q_value", optional_number(c.q_value)},
              {"noise_percent", optional_number(c.noise_percent)},
              {"result", to_string(c.kind)},
              {"reason", c.reason},
              {"would_regress", c.would_regress}};
}

}  // namespace

json comparison_to_json(const Comparison& comparison) {
  json changes = json::array();
  for (const auto& c : comparison.changes) changes.push_back(change_json(c));
  json counts = json::object();
  for (ChangeKind kind : {ChangeKind::improved, ChangeKind::regressed, ChangeKind::unchanged, ChangeKind::added,
                          ChangeKind::missing, ChangeKind::incomparable, ChangeKind::inconclusive}) {
    counts[to_string(kind)] = comparison.count(kind);
  }
  return json{{"schema", "pipecheck.comparison"},
              {"version", 1},
              {"baseline", label_json(comparison.baseline)},
              {"current", label_json(comparison.current)},
              {"threshold_percent", comparison.options.threshold_percent},
              {"max_p_value", comparison.options.max_p_value},
              {"false_discovery_rate", comparison.options.false_discovery_rate},
              {"busy_cpu_percent", comparison.options.busy_cpu_percent},
              {"regression", comparison.has_regression()},
              {"inconclusive", comparison.inconclusive()},
              {"exit_code", code(comparison.exit_code())},
              {"counts", counts},
              {"notes", comparison.notes},
              {"changes", changes}};
}

}  // namespace pipecheck
