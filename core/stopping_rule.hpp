// When a probe stops repeating a case, as nvbench's stdrel criterion does: at least a minimum
// count, then until the median's noise (core/median_interval) is under a target, or a maximum
// count, or a time cap per case. With verdicts to decide (`pipecheck run` without a baseline),
// a figure the acceptance profile judges stops once its verdict is the same at both ends of the
// median's confidence interval (judge/verdict_decider says so); a figure without a threshold is
// held to the noise target, or stops with the verdicts it is the reference of (unless another
// figure is computed from it: CaseDecision::held_to_noise). The thread counts
// of one case (its 1-thread and N-thread runs) form a group that stops together, so their
// repetitions stay paired round by round.
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
  // Stop a judged figure once its verdict is decided (--pipecheck_verdict_inventory).
  bool decide_verdicts = false;
  // Hold figures without a threshold to the noise target; false (--pipecheck_target_noise=none):
  // they stop at the minimum count.
  bool hold_figures_to_noise = true;
  bool fixed() const { return min_repetitions == max_repetitions; }
  // "5 repetitions", "5 to 100 repetitions until the median's noise is <= 2%, at most 10 s a
  // case", "5 to 100 repetitions until each verdict is decided (figures without a threshold:
  // until the median's noise is <= 3%), at most 2.5 s a case".
  std::string describe() const;
};

// What the judge makes of a case's repetitions so far (judge/verdict_decider): `judged` when a
// threshold of the acceptance profile applies to its figure; `decided` when its verdict is the
// same at both ends of the median's confidence interval; `why` says it for the report.
struct CaseDecision {
  bool judged = false;
  bool decided = false;
  std::string why;  // "pass at both ends of the median's interval (88.1% to 97.0% of ...)"
  // A figure another figure is computed from (the decode probe's loader cases feed the training
  // budget): held to the noise target even once the verdicts it is the reference of are decided,
  // and even where figures without a threshold would stop at the minimum count.
  bool held_to_noise = false;
};

// What a probe does without pipecheck's repetition flags: quick 5 fixed; standard 5 to 100
// until 2%, 10 s a case; full 10 to 200 until 2%, 60 s a case.
RepetitionPolicy default_repetition_policy(ProbeMode mode);

// The flags (one block, each checked for its range; UsageError names the flag and the value):
//   --pipecheck_repetitions=N        a fixed count (1..10000)
//   --pipecheck_min_repetitions=N    at least this many (1..10000)
//   --pipecheck_max_repetitions=N    at most this many (>= the minimum, <= 10000)
//   --pipecheck_target_noise=PCT     stop once the median's noise is at most this (0 < PCT <= 100)
//   --pipecheck_target_noise=none    figures without a threshold stop at the minimum count
//   --pipecheck_case_seconds=S       stop a case after this much wall time (0 < S <= 86400)
//   --pipecheck_verdict_inventory=F  decide verdicts (the machine's inventory.json, which the
//                                    judge reads; --pipecheck_verdict_profile=F its profile)
// --pipecheck_repetitions excludes the other count flags.
RepetitionPolicy repetition_policy(const ProbeOptions& options);
bool has_repetition_flags(const ProbeOptions& options);

enum class StopReason { running, converged, decided, minimum_count, max_repetitions, time_cap, fixed_count };

// The decision for one group of cases that ran the same number of rounds: `values[i]` are the
// repetitions of member i, `seconds` the wall time the group has taken so far, `decisions[i]`
// the judge's word on member i (empty: none judged).
StopReason group_stop_reason(const std::vector<std::vector<double>>& values, double seconds,
                             const RepetitionPolicy& policy, const std::vector<CaseDecision>& decisions = {});

// One case's line for the report: "converged: noise 1.4% <= 2% after 9 repetitions",
// "time cap (10 s a case) after 23 repetitions: noise 3.1%, target 2%", "verdict decided after
// 5 repetitions: pass at both ends ...", each with the group's wall time when `seconds` > 0
// (", 3.1 s"; "for its group of 2" when it shares them).
std::string describe_stop(StopReason reason, const std::vector<double>& values, const RepetitionPolicy& policy,
                          const CaseDecision& decision = {}, double seconds = 0, int group_size = 1);

// "decode/full/real_time/threads:2" -> "decode/full/real_time": the cases that differ only in
// their thread count form one group.
std::string scaling_group_key(const std::string& run_name);

}  // namespace pipecheck
