// The watch's verdict rules: ONE table (watch_rules.cpp) listing every rule, what it applies to,
// its condition with its thresholds, and the verdict it gives. The first rule in table order
// that fires is the headline ("which stage is the job waiting on"); every rule that fires is
// listed with the figures behind it. `pipecheck watch --list-rules` prints the table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "watch/watch_analysis.hpp"

namespace pipecheck {

struct WatchFinding {
  std::string rule;     // "input_single_process": stable, for tests and docs
  std::string stage;    // input, storage, pcie, gpu, comm, cpu, periodic or none
  std::string verdict;  // "input pipeline bound, single process (num_workers=0 pattern)"
  std::vector<std::string> figures;  // the numbers behind it, one line each
  std::string advice;   // what to try first
};

using WatchRuleJudge = std::optional<WatchFinding> (*)(const WatchAnalysis&);

struct WatchRule {
  const char* id;
  const char* applies;    // "any", "GPU", "no GPU", "2+ GPUs"
  std::string condition;  // in words, thresholds included
  const char* verdict;
  WatchRuleJudge judge;
};

// Every rule, in priority order.
const std::vector<WatchRule>& watch_rules();

// The sampling and analysis thresholds that belong to the rules (busy thread, idle level,
// warm-up, sawtooth shape), so that they too are defined in the one table file.
double busy_thread_demand_pct();
// A thread at or above this demand saturates its core (a worker of the loader, the busiest thread).
double saturated_thread_demand_pct();
AnalysisOptions watch_analysis_options();

struct WatchVerdict {
  std::optional<WatchFinding> headline;  // empty: no rule fired
  std::vector<WatchFinding> findings;    // every rule that fired, in table order
};
WatchVerdict judge_watch(const WatchAnalysis& analysis);

// The table as aligned text lines: id, applies to, condition, verdict.
std::string render_rules_table();

}  // namespace pipecheck
