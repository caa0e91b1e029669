// When a probe stops repeating a case, as nvbench's stdrel criterion does: at least a minimum
// count, then until the median's noise (core/median_interval) is under a target, or a maximum
// count, or a time cap per case. Quick mode runs a fixed count. The thread counts of one case
// (its 1-thread and N-thread runs) form a group that stops together, so their repetitions stay
// paired round by round.
#pragma once

#include <string>
#include <vector>

#include "core/probe_flags.hpp"

namespace pipecheck {

struct RepetitionPolicy {
  int min_repetitions = 5;
  int max_repetitions = 5;
  double target_noise_percent = 2.0;  // noise of the median, % of it
  double case_seconds = 0;            // wall time a case may take; 0: no cap
  bool fixed() const { return min_repetitions == max_repetitions; }
  // "5 repetitions" or "5 to 100 repetitions until the median's noise is <= 2%, at most 10 s a case".
  std::string describe() const;
};

// What a probe does without pipecheck's repetition flags: quick 5 fixed; standard 5 to 100
// until 2%, 10 s a case; full 10 to 200 until 2%, 60 s a case.
RepetitionPolicy default_repetition_policy(ProbeMode mode);

// The flags (one block, each checked for its range; UsageError names the flag and the value):
//   --pipecheck_repetitions=N        a fixed count (1..10000)
//   --pipecheck_min_repetitions=N    at least this many (1..10000)
//   --pipecheck_max_repetitions=N    at most this many (>= the minimum, <= 10000)
//   --pipecheck_target_noise=PCT     stop once the median's noise is at most this (0 < PCT <= 100)
//   --pipecheck_case_seconds=S       stop a case after this much wall time (0 < S <= 86400)
// --pipecheck_repetitions excludes the other count flags.
RepetitionPolicy repetition_policy(const ProbeOptions& options);
bool has_repetition_flags(const ProbeOptions& options);

enum class StopReason { running, converged, max_repetitions, time_cap, fixed_count };

// The decision for one group of cases that ran the same number of rounds: `values[i]` are the
// repetitions of member i, `seconds` the wall time the group has taken so far.
StopReason group_stop_reason(const std::vector<std::vector<double>>& values, double seconds,
                             const RepetitionPolicy& policy);

// One case's line for the report: "converged: noise 1.4% <= 2% after 9 repetitions",
// "time cap (10 s a case) after 23 repetitions: noise 3.1%, target 2%", ...
std::string describe_stop(StopReason reason, const std::vector<double>& values, const RepetitionPolicy& policy);

// "decode/full/real_time/threads:2" -> "decode/full/real_time": the cases that differ only in
// their thread count form one group.
std::string scaling_group_key(const std::string& run_name);

}  // namespace pipecheck
