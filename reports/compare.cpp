// Comparing two runs measurement by measurement, and the noise rule that says which changes
// are real.
//
// The noise rule. report.json keeps, per measurement, the median, min and max of the
// repetitions and their count, not the repetitions themselves. A change counts as beyond noise
// when all three hold:
//   1. the two [min, max] ranges are disjoint: every current repetition is worse (or better)
//      than every baseline repetition. That is the Mann-Whitney U statistic at its extreme
//      (U = 0), and its exact two-sided chance under "no change" is 2 / C(n1 + n2, n1): 0.008
//      for 5 vs 5 repetitions, 0.1 for 3 vs 3, 1 for 1 vs 1. This is the strongest rank test
//      the stored figures allow, and it needs no assumption about the shape of the noise;
//   2. that chance is at most max_p_value (0.1), so single repetitions never decide;
//   3. |change of the medians| >= threshold_percent (3%), so a tiny but very stable shift
//      (a 0.5% clock difference) does not fail a CI gate.
// Overlapping ranges are reported as unchanged (within noise) with the change still shown.
#include "reports/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/json_records.hpp"

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

// Decides improved / regressed / unchanged for a key both runs measured in the same unit.
void classify_noise(MeasurementChange& change, const CompareOptions& options) {
  const Statistics& old_stats = *change.baseline;
  const Statistics& new_stats = *change.current;
  if (old_stats.median == 0) {
    change.reason = "baseline median is 0: no relative change";
    return;
  }
  const double change_percent = 100.0 * (new_stats.median - old_stats.median) / std::fabs(old_stats.median);
  change.change_percent = change_percent;
  change.ranges_disjoint = ranges_disjoint(old_stats, new_stats);
  if (!change.ranges_disjoint) {
    change.reason = "within noise: ranges overlap";
    return;
  }
  const double p = disjoint_ranges_p_value(old_stats.samples, new_stats.samples);
  change.p_value = p;
  if (p > options.max_p_value) {
    change.reason = "too few repetitions to tell (" + std::to_string(old_stats.samples) + " vs " +
                    std::to_string(new_stats.samples) + ")";
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
  classify_noise(change, options);
  return change;
}

int Comparison::count(ChangeKind kind) const {
  return static_cast<int>(std::count_if(changes.begin(), changes.end(),
                                        [&](const MeasurementChange& c) { return c.kind == kind; }));
}

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
              {"p_value", optional_number(c.p_value)},
              {"result", to_string(c.kind)},
              {"reason", c.reason}};
}

}  // namespace

json comparison_to_json(const Comparison& comparison) {
  json changes = json::array();
  for (const auto& c : comparison.changes) changes.push_back(change_json(c));
  json counts = json::object();
  for (ChangeKind kind : {ChangeKind::improved, ChangeKind::regressed, ChangeKind::unchanged,
                          ChangeKind::added, ChangeKind::missing, ChangeKind::incomparable}) {
    counts[to_string(kind)] = comparison.count(kind);
  }
  return json{{"schema", "pipecheck.comparison"},
              {"version", 1},
              {"baseline", label_json(comparison.baseline)},
              {"current", label_json(comparison.current)},
              {"threshold_percent", comparison.options.threshold_percent},
              {"max_p_value", comparison.options.max_p_value},
              {"regression", comparison.has_regression()},
              {"counts", counts},
              {"notes", comparison.notes},
              {"changes", changes}};
}

}  // namespace pipecheck
