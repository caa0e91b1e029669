// The report of one run: what each probe produced, each measurement held against its ceiling.
// The probes measure; this is where ceilings are attached (DESIGN principle 1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/inventory.hpp"
#include "core/probe_outcome.hpp"
#include "report/verdict.hpp"

namespace pipecheck {

// The params each stage's probe writes so the report finds its ceiling: the stage's record
// (StageSpec::measurement_contract in stages/). Any stage: verified (yes|no); "no" is judged by
// probe.unverified.

struct Report {
  int version = kReportSchemaVersion;
  std::string pipecheck_version;
  std::string host;
  std::string started_utc;
  std::string finished_utc;
  std::string mode;  // quick, standard, full
  std::vector<ProbeOutcome> probes;  // each with its measurements
  // The quiet-machine check before the first probe (app/quiet_check); absent in older reports.
  std::optional<QuietCheck> quiet_check;
  // Verdicts, findings and the budget (judge/judge.hpp); empty until judged. In report.json:
  // "overall", "verdicts", "findings", "budget" (null without a workload).
  Judged judged;
};

// The ceiling one measurement is held against, from the inventory, by its stage and params;
// `siblings` are the other measurements of the same probe.
CeilingResult ceiling_for(const Measurement& measurement, const Inventory& inventory,
                          const std::vector<Measurement>& siblings = {});
// Fills ceiling and percent_of_ceiling of every measurement of every probe.
void attach_ceilings(Report& report, const Inventory& inventory);

// JSON of the judging records (the renderers and compare read report.json through these).
void to_json(nlohmann::json& j, const Judgement& judgement);
void from_json(const nlohmann::json& j, Judgement& judgement);
void to_json(nlohmann::json& j, const Finding& finding);
void from_json(const nlohmann::json& j, Finding& finding);
void to_json(nlohmann::json& j, const BudgetStage& stage);
void from_json(const nlohmann::json& j, BudgetStage& stage);
void to_json(nlohmann::json& j, const PipelineBudget& budget);
void from_json(const nlohmann::json& j, PipelineBudget& budget);

nlohmann::json report_to_json(const Report& report);
// Throws std::runtime_error naming what is wrong with the document.
Report report_from_json(const nlohmann::json& document);

}  // namespace pipecheck
