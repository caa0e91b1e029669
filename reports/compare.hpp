// Two runs side by side: per measurement key the change of the median and whether it is beyond
// the noise of the repetitions. Used by `pipecheck compare A B` and by the baseline step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/measurement.hpp"
#include "reports/report.hpp"

namespace pipecheck {

// "added" is shown as "new" (a key only the current run has); "incomparable" is a key whose
// unit changed between the runs, so no change can be computed.
enum class ChangeKind { improved, regressed, unchanged, added, missing, incomparable };
const char* to_string(ChangeKind kind);

struct CompareOptions {
  double threshold_percent = 3.0;  // smallest |change| of the median that counts
  // Largest chance that disjoint [min,max] ranges arise from noise alone that still counts as
  // beyond noise; 0.1 lets 3 vs 3 repetitions (quick mode) decide, 5 vs 5 gives 0.008.
  double max_p_value = 0.1;
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
  std::optional<double> p_value;  // chance of ranges this far apart from noise alone
  ChangeKind kind = ChangeKind::unchanged;
  std::string reason;  // why this kind: "ranges overlap", "below 3% threshold", ...
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
