// `pipecheck run --plan`: how long each probe will take before anything is measured. Each
// probe's cases (listed by the probe itself, or planned from a recorded inventory by its stage
// record), times the stopping rule of the run (core/stopping_rule: repetitions, minimum time a
// repetition, time cap a case), plus the probe's own setup.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/probe_catalog.hpp"
#include "app/run_command.hpp"
#include "core/stopping_rule.hpp"

namespace pipecheck {

// The least and the most wall time a set of cases can take under a stopping rule, setup aside.
// A repetition costs `repetition_seconds` (Google Benchmark's minimum time, twice: it sizes the
// iteration count with one call, then times another). A group (one case's thread counts) runs
// at least the minimum count; it stops at the latest one round past its time cap or at the
// maximum count. `fixed`: every case runs the minimum count, whatever the rule.
struct TimeBounds {
  double at_least = 0;
  double at_most = 0;
};
TimeBounds plan_case_time(const std::vector<std::string>& cases, const RepetitionPolicy& policy,
                          double repetition_seconds, bool fixed);

struct StagePlan {
  std::string stage;
  std::string executable;
  std::string source;   // "listed by pipecheck-decode", "planned from inventory.json (8 GPUs)"
  std::string skipped;  // why it will not run here; empty when it will
  std::vector<std::string> cases;
  int groups = 0;
  double setup_seconds = 0;  // listing took this long (corpus, scratch file); 0 when planned
  TimeBounds time;
};

struct RunPlan {
  std::string mode;
  std::string rule;  // the stopping rule in words
  std::vector<StagePlan> stages;
  TimeBounds total;
  std::vector<std::string> notes;
};

// The plan of `run` with these options: each selected probe lists its cases here
// (--benchmark_list_tests, with the run's arguments), or, with `planned_inventory`, every
// stage's record plans them for that machine and no probe is started.
RunPlan plan_run(const RunOptions& options, const std::vector<ProbeEntry>& catalog,
                 const std::filesystem::path& planned_inventory = {});

std::string render_plan(const RunPlan& plan);

}  // namespace pipecheck
