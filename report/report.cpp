// Attaching ceilings to measurements, and the JSON form of a report (report.json).
#include "report/report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "core/json_field_error.hpp"
#include "core/number_input.hpp"
#include "core/json_records.hpp"
#include "core/text_escape.hpp"
#include "core/stage_registry.hpp"
#include "ceilings/scaling_pairs.hpp"

namespace pipecheck {

using nlohmann::json;

namespace {

json optional_number(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

Verdict verdict_from(const json& j, const char* key) {
  const std::string text = field<std::string>(j, key);
  const auto verdict = parse_verdict(text);
  if (!verdict) throw FieldError(std::string("\"") + key + "\": unknown verdict '" + printable_text(text) + "'");
  return *verdict;
}

}  // namespace

void to_json(json& j, const Judgement& judgement) {
  j = json{{"subject", judgement.subject},   {"stage", judgement.stage},
           {"what", judgement.what},         {"verdict", to_string(judgement.verdict)},
           {"rule", judgement.rule},         {"explanation", judgement.explanation}};
  if (judgement.probe_failed) j["probe_failed"] = true;
}

void from_json(const json& j, Judgement& judgement) {
  judgement.subject = field<std::string>(j, "subject");
  judgement.stage = field_or(j, "stage", "");
  judgement.what = field_or(j, "what", "");
  judgement.verdict = verdict_from(j, "verdict");
  judgement.rule = field_or(j, "rule", "");
  judgement.explanation = field_or(j, "explanation", "");
  judgement.probe_failed = field_or(j, "probe_failed", false);
}

void to_json(json& j, const Finding& finding) {
  j = json{{"severity", to_string(finding.severity)},
           {"stage", finding.stage},
           {"text", finding.text},
           {"evidence", finding.evidence}};
}

void from_json(const json& j, Finding& finding) {
  finding.severity = verdict_from(j, "severity");
  finding.stage = field_or(j, "stage", "");
  finding.text = field<std::string>(j, "text");
  finding.evidence = field_or(j, "evidence", std::vector<std::string>{});
}

void to_json(json& j, const BudgetStage& stage) {
  j = json{{"stage", stage.stage},
           {"samples_per_second", optional_number(stage.samples_per_second)},
           {"derivation", stage.derivation}};
}

void from_json(const json& j, BudgetStage& stage) {
  stage.stage = field<std::string>(j, "stage");
  member(j, "samples_per_second");  // required, though it may be null
  optional_field(j, "samples_per_second", stage.samples_per_second);
  stage.derivation = field_or(j, "derivation", "");
}

void to_json(json& j, const PipelineBudget& budget) {
  j = json{{"workload", budget.workload},
           {"stages", budget.stages},
           {"bounding_stage", budget.bounding_stage},
           {"explanation", budget.explanation}};
}

void from_json(const json& j, PipelineBudget& budget) {
  budget.workload = field_or(j, "workload", "");
  budget.stages = list_field<BudgetStage>(j, "stages");
  budget.bounding_stage = field_or(j, "bounding_stage", "");
  budget.explanation = field_or(j, "explanation", "");
}

namespace {

CeilingResult ceiling_among(const Measurement& measurement, const Inventory& inventory, const Siblings& siblings) {
  const StageSpec* stage = find_stage(measurement.stage);
  if (stage == nullptr) return CeilingResult::unknown("no ceiling model for stage '" + measurement.stage + "'");
  return stage->ceiling(measurement, StageContext{inventory, siblings});
}

}  // namespace

CeilingResult ceiling_for(const Measurement& measurement, const Inventory& inventory,
                          const std::vector<Measurement>& siblings) {
  return ceiling_among(measurement, inventory, Siblings(siblings));
}

void attach_ceilings(Report& report, const Inventory& inventory) {
  for (auto& probe : report.probes) {
    const Siblings siblings(probe.measurements);  // pointers stay valid: only ceilings change below
    for (auto& m : probe.measurements) m.ceiling = ceiling_among(m, inventory, siblings);
    attach_percentages(probe.measurements);  // thread scaling pair by pair (ceilings/scaling_pairs)
  }
}

namespace {

json quiet_check_json(const std::optional<QuietCheck>& check) {
  if (!check) return nullptr;
  json j = check->conditions;
  // No limit (the profile's conditions.other_cpu_max_percent = off) is null, not infinity.
  j["threshold_percent"] = std::isfinite(check->threshold_percent) ? json(check->threshold_percent) : json(nullptr);
  j["quiet"] = check->quiet;
  j["waited_seconds"] = check->waited_seconds;
  return j;
}

std::optional<QuietCheck> quiet_check_from(const json& document) {
  if (!document.contains("quiet_check") || document["quiet_check"].is_null()) return std::nullopt;
  return in_field(document, "quiet_check", [](const json& j) {
    QuietCheck check;
    check.conditions = j.get<RunConditions>();
    const bool no_limit = j.contains("threshold_percent") && j["threshold_percent"].is_null();
    check.threshold_percent = no_limit ? std::numeric_limits<double>::infinity() : field_or(j, "threshold_percent", 20.0);
    check.quiet = field_or(j, "quiet", true);
    check.waited_seconds = field_or(j, "waited_seconds", 0.0);
    return check;
  });
}

}  // namespace

json report_to_json(const Report& report) {
  json probes = json::array();
  json measurements = json::array();
  for (const auto& probe : report.probes) {
    probes.push_back(probe);
    for (const auto& m : probe.measurements) {
      json entry = m;
      entry["probe"] = probe.probe;
      measurements.push_back(std::move(entry));
    }
  }
  return json{{"schema", "pipecheck.report"},
              {"version", report.version},
              {"pipecheck_version", report.pipecheck_version},
              {"host", report.host},
              {"started_utc", report.started_utc},
              {"finished_utc", report.finished_utc},
              {"mode", report.mode},
              {"probes", probes},
              {"quiet_check", quiet_check_json(report.quiet_check)},
              {"measurements", measurements},
              {"overall", to_string(report.judged.overall)},
              {"verdicts", report.judged.judgements},
              {"findings", report.judged.findings},
              {"budget", report.judged.budget ? json(*report.judged.budget) : json(nullptr)}};
}

Report report_from_json(const json& document) {
  if (!document.is_object() || field_or(document, "schema", "") != "pipecheck.report") {
    throw std::runtime_error("not a pipecheck report (no \"schema\": \"pipecheck.report\")");
  }
  Report report;
  member(document, "version");  // required: a missing one is named
  report.version = schema_version_field(document);
  check_schema_version("report.json", report.version, kReportSchemaVersion);
  report.pipecheck_version = field_or(document, "pipecheck_version", "");
  report.host = field_or(document, "host", "");
  report.started_utc = field_or(document, "started_utc", "");
  report.finished_utc = field_or(document, "finished_utc", "");
  report.mode = field_or(document, "mode", "");
  report.probes = list_field<ProbeOutcome>(document, "probes");
  report.quiet_check = quiet_check_from(document);
  for_each_element(document, "measurements", [&](const json& entry) {
    const std::string probe = field<std::string>(entry, "probe");
    auto owner = std::find_if(report.probes.begin(), report.probes.end(),
                              [&](const ProbeOutcome& p) { return p.probe == probe; });
    if (owner == report.probes.end()) throw FieldError("names unknown probe \"" + printable_text(probe) + "\"");
    owner->measurements.push_back(entry.get<Measurement>());
  });
  // Reports written before the judge existed have none of these: they read as not judged.
  if (document.contains("overall")) report.judged.overall = verdict_from(document, "overall");
  if (document.contains("verdicts")) {
    report.judged.judgements = list_field<Judgement>(document, "verdicts");
  }
  if (document.contains("findings")) {
    report.judged.findings = list_field<Finding>(document, "findings");
  }
  if (document.contains("budget") && !document.at("budget").is_null()) {
    report.judged.budget = field<PipelineBudget>(document, "budget");
  }
  return report;
}

}  // namespace pipecheck
