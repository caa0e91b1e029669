// The judging side's records: a verdict per measurement (or per inventory fact or probe outcome)
// against the acceptance profile, findings in plain words tied to their figures, and the
// pipeline budget. Renderers read these; only the judge writes them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/outcome.hpp"

namespace pipecheck {


struct Judgement {
  std::string subject;      // a measurement key ("hostmem/memcpy/threads:2"), "probe/<stage>",
                            // or an inventory fact ("inventory/gpu0/pcie_link")
  std::string stage;
  std::string what;         // display text
  Verdict verdict = Verdict::info;
  std::string rule;         // the profile line that decided it: "memory.hbm_copy_min_percent = 85"
  std::string explanation;  // "4.10 TB/s is 85.4% of 4.80 TB/s (vendor spec), >= 85%"
  bool probe_failed = false;  // the probe itself crashed, hung or printed garbage (JUnit <error>)
};

struct Finding {
  Verdict severity = Verdict::info;
  std::string stage;
  std::string text;                   // "pageable H2D reaches 9 GB/s against 52 GB/s pinned: ..."
  std::vector<std::string> evidence;  // the subjects (measurement keys) behind it
};

struct BudgetStage {
  std::string stage;
  std::optional<double> samples_per_second;  // empty: not measured or not applicable
  std::string derivation;                    // "6.3 GB/s / 450 KB per image = 14000 samples/s"
};

struct PipelineBudget {
  std::string workload;              // the workload as given, in words
  std::vector<BudgetStage> stages;
  std::string bounding_stage;        // the stage with the lowest samples/s
  std::string explanation;
};

struct Judged {
  std::vector<Judgement> judgements;
  std::vector<Finding> findings;
  std::optional<PipelineBudget> budget;
  Verdict overall = Verdict::info;
};

}  // namespace pipecheck
