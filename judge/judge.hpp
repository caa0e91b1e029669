// The judge: each measurement, probe outcome and inventory fact held against the acceptance
// profile, with the rule that decided and the figures behind it; plus findings and the budget.
#pragma once

#include <optional>

#include "core/inventory.hpp"
#include "budget/pipeline_budget.hpp"
#include "judge/profile.hpp"
#include "report/report.hpp"
#include "report/verdict.hpp"

namespace pipecheck {

// Verdicts (report.probes must already carry their ceilings: attach_ceilings first), the
// findings (judge/findings.hpp) and, when a workload is given, the pipeline budget.
// overall = the worst verdict of the judgements (findings advise; they do not change it).
Judged judge(const Report& report, const Inventory& inventory, const Profile& profile,
             const std::optional<Workload>& workload);

// The judgements alone (what judge() puts in Judged::judgements), for tests and renderers.
std::vector<Judgement> judge_measurements(const Report& report, const Inventory& inventory,
                                          const Profile& profile);
std::vector<Judgement> judge_inventory(const Report& report, const Inventory& inventory,
                                       const Profile& profile);

// One severity for one measurement: a finding whose evidence holds a verdict of warn or worse
// that is worse than the finding's own severity takes that verdict (a measurement that fails is
// never "warn" in the findings). judge() applies it.
void align_finding_severities(Judged& judged);

// The verdict of a % of ceiling against a minimum %: below -> fail; from the minimum up to
// (minimum + warn margin) exclusive -> warn; at or above it -> pass.
Verdict verdict_for_percent(double percent, double minimum_percent, double warn_margin_percent);

// The exit code a run or report returns for its verdicts (core/outcome.hpp: 1 on fail or invalid,
// 4 when the worst is inconclusive, else 0).
int exit_code_of(const Judged& judged);

}  // namespace pipecheck
