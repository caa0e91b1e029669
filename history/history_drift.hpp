// Drift against a node's own past: for each host and measurement, the series of its runs is
// searched for the one point where the runs after it differ from the runs before (a step, or a
// slide that starts there). A change is called only when
//   - a Mann-Whitney rank test of the runs' medians before against after is significant after
//     Bonferroni over every start point tried and Holm across every series of the store,
//   - the repetitions agree (the same test on the pooled repetitions of both sides), and
//   - its size passes the compare threshold (3%), twice the runs' own noise (the median's
//     confidence half-width, from the repetitions) and twice the earlier runs' spread.
// A PCIe link that trained below its maximum in some runs but not all is flagged with how often.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "history/history_record.hpp"

namespace pipecheck {

struct DriftOptions {
  double threshold_percent = 3.0;      // smallest |change| that counts (compare's default)
  double family_alpha = 0.05;          // Holm's family-wise error rate across all series
  int min_runs_before = 5;             // runs on each side of a change point
  int min_runs_after = 5;
  double busy_cpu_percent = 20;        // runs whose probe ran busier than this are left out (as compare)
};

struct Drift {
  std::string host;
  std::string key;     // a measurement key, or the link's device for kind "link"
  std::string what;
  std::string unit;
  std::string kind;    // "step", "slide" or "link"
  std::string direction;  // "down" / "up" (worse / better is in `worse`)
  bool worse = true;
  std::string started_utc;  // the first run of the change
  std::int64_t started_run = 0;  // its id in the store
  int start_index = 0;           // its place in the series (0 = the host's first run of it)
  int runs_before = 0;
  int runs_after = 0;
  double before_median = 0;  // median of the runs' medians before the change
  double after_median = 0;   // after it (a slide: of its last runs)
  double size_percent = 0;   // (after - before) / before
  double noise_percent = 0;  // the runs' own noise (median of their confidence half-widths)
  double spread_percent = 0;  // the earlier runs' spread (1.4826 x MAD of their medians)
  double p_value = 1;         // the rank test of the medians at the chosen point
  double adjusted_p = 1;      // Bonferroni over the points tried, then Holm over the series
  double repetitions_p = 1;   // the same test on the pooled repetitions
  int excluded_busy = 0;      // runs left out as busy
  // A link: in how many runs it trained below its maximum, of how many.
  int flagged_runs = 0;
  int total_runs = 0;
  std::string evidence;  // one line, in words
};

// One series: a host's runs of one measurement, oldest first.
struct SeriesPoint {
  std::int64_t run_id = 0;
  std::string started_utc;
  double median = 0;
  std::vector<double> repetitions;
  std::optional<double> noise_percent;
};

// The candidate change of one series before the correction across series (exposed for tests).
struct ChangeCandidate {
  int start = 0;
  std::string kind;  // step or slide
  double p_value = 1;
  double p_search = 1;  // Bonferroni over the start points tried
};
std::optional<ChangeCandidate> best_change_point(const std::vector<SeriesPoint>& series, const DriftOptions& options);

struct DriftAnalysis {
  std::vector<Drift> drifts;  // changes and flapping links, worst first
  int series = 0;             // series examined
  int series_too_short = 0;   // fewer runs than min_runs_before + min_runs_after
  int points_busy = 0;        // runs of a series left out as busy (summed over the series)
};

DriftAnalysis find_drifts(const std::vector<HistoryRun>& runs, const DriftOptions& options = {});

}  // namespace pipecheck
