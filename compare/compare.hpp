// Two runs side by side: per measurement key the change of the median and whether it is beyond
// the noise of the repetitions. Used by `pipecheck compare A B` and by the baseline step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/measurement.hpp"
#include "core/outcome.hpp"
#include "report/report.hpp"

namespace pipecheck {

// "added" is shown as "new" (a key only the current run has); "incomparable" is a key whose
// unit changed between the runs, or whose probe ran under busy conditions in either run (see
// compare.cpp), so no change can be called; "inconclusive" is a change as large as a
// regression that the repetitions cannot tell apart from noise (too few of them).
enum class ChangeKind { improved, regressed, unchanged, added, missing, incomparable, inconclusive };
const char* to_string(ChangeKind kind);

struct CompareOptions {
  double threshold_percent = 3.0;  // smallest |change| of the median that counts
  // Range rule, for runs recorded before repetitions were kept: largest chance that disjoint
  // [min,max] ranges arise from noise alone that still counts as beyond noise.
  double max_p_value = 0.1;
  // Rank test: the false-discovery rate across all the cases of one comparison.
  double false_discovery_rate = 0.05;
  // A probe that ran while other processes used more CPU than this (% of one core) is not
  // compared, unless forced.
  double busy_cpu_percent = 20;
  bool force = false;
};

struct MeasurementChange {
  std::string key;
  std::string stage;
  std::string what;
  std::string unit;          // the current run's unit (the baseline's when missing)
  std::string baseline_unit;  // differs from unit only when incomparable
  std::optional<Statistics> baseline;
  std::optional<Statistics> current;
  std::optional<double> change_percent;  // (current - baseline) / baseline of the medians
  bool higher_is_better = true;
  bool ranges_disjoint = false;
  // Which rule decided: "rank test" (Mann-Whitney U on the kept repetitions) or "range rule"
  // (older runs without them).
  std::string rule;
  std::optional<double> p_value;  // rank test: two-sided p; range rule: chance of disjoint ranges
  std::optional<double> q_value;  // rank test: Benjamini-Hochberg adjusted over the comparison
  std::optional<double> noise_percent;  // both medians' noise together: sqrt(a^2 + b^2)
  ChangeKind kind = ChangeKind::unchanged;
  std::string reason;  // why this kind: "ranges overlap", "below 3% threshold", ...
  // A change worse than the threshold and the noise that was not called a regression: too few
  // repetitions, or runs under busy conditions. It makes the comparison inconclusive (exit 4).
  bool would_regress = false;
};

// Who a run is, for headings and messages.
struct RunLabel {
  std::string source;  // the folder or file it was read from
  std::string host;
  std::string started_utc;
  int version = kReportSchemaVersion;
};

struct Comparison {
  RunLabel baseline;
  RunLabel current;
  CompareOptions options;
  std::vector<MeasurementChange> changes;  // sorted by key
  std::vector<std::string> notes;          // other hosts, probes that failed now, ...

  int count(ChangeKind kind) const;
  bool has_regression() const { return count(ChangeKind::regressed) > 0; }
  // Nothing regressed, but something that would have been a regression cannot be told apart
  // from noise or conditions.
  bool inconclusive() const;
  // No measurement was in both runs with one unit: "no regression" would claim what was never
  // looked at, so the comparison is inconclusive.
  bool nothing_compared() const;
  // 1 a regression, 4 inconclusive, else 0 (core/outcome.hpp).
  ExitCode exit_code() const;
};

// Rates (GB/s, TFLOP/s, IOPS, images/s, anything per second) are better higher; times and
// latencies (ns, us, ms, s) are better lower.
bool higher_is_better(const std::string& unit);

// The exact two-sided chance that, with no real change, n1 and n2 exchangeable repetitions
// fall into disjoint ranges: 2 / C(n1 + n2, n1). 1 when either side has no repetition.
double disjoint_ranges_p_value(int n1, int n2);

// Either side may be null (a new or a missing key), not both.
MeasurementChange compare_measurement(const Measurement* baseline, const Measurement* current,
                                      const CompareOptions& options);

Comparison compare_reports(const Report& baseline, const Report& current,
                           const CompareOptions& options = {});

nlohmann::json comparison_to_json(const Comparison& comparison);

}  // namespace pipecheck
