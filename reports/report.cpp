// Attaching ceilings to measurements, and the JSON form of a report (report.json).
#include "reports/report.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/json_records.hpp"
#include "reports/ceilings.hpp"

namespace pipecheck {

using nlohmann::json;

namespace {

// Stage -> how its ceiling is found. One entry per stage; stages without one say so.
using CeilingRule = CeilingResult (*)(const Measurement&, const Inventory&);

CeilingResult host_memory_ceiling(const Measurement&, const Inventory& inventory) {
  return dram_ceiling(inventory.memory);
}

const std::map<std::string, CeilingRule>& ceiling_rules() {
  static const std::map<std::string, CeilingRule> rules = {
      {"hostmem", host_memory_ceiling},
  };
  return rules;
}

}  // namespace

CeilingResult ceiling_for(const Measurement& measurement, const Inventory& inventory) {
  const auto& rules = ceiling_rules();
  const auto rule = rules.find(measurement.stage);
  if (rule == rules.end()) {
    return CeilingResult::unknown("no ceiling model for stage '" + measurement.stage + "'");
  }
  return rule->second(measurement, inventory);
}

void attach_ceilings(Report& report, const Inventory& inventory) {
  for (auto& probe : report.probes) {
    for (auto& m : probe.measurements) {
      m.ceiling = ceiling_for(m, inventory);
      m.percent_of_ceiling.reset();
      const auto& ceiling = m.ceiling.ceiling;
      if (ceiling && ceiling->value > 0 && ceiling->unit == m.unit) {
        m.percent_of_ceiling = 100.0 * m.stats.median / ceiling->value;
      }
    }
  }
}

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
              {"measurements", measurements}};
}

Report report_from_json(const json& document) {
  if (!document.is_object() || document.value("schema", "") != "pipecheck.report") {
    throw std::runtime_error("not a pipecheck report (no \"schema\": \"pipecheck.report\")");
  }
  Report report;
  report.version = document.at("version").get<int>();
  if (report.version > kReportSchemaVersion) {
    throw std::runtime_error("report version " + std::to_string(report.version) +
                             " is newer than this pipecheck understands (" +
                             std::to_string(kReportSchemaVersion) + ")");
  }
  report.pipecheck_version = document.value("pipecheck_version", "");
  report.host = document.value("host", "");
  report.started_utc = document.value("started_utc", "");
  report.finished_utc = document.value("finished_utc", "");
  report.mode = document.value("mode", "");
  for (const auto& entry : document.at("probes")) report.probes.push_back(entry.get<ProbeOutcome>());
  for (const auto& entry : document.at("measurements")) {
    const std::string probe = entry.at("probe").get<std::string>();
    auto owner = std::find_if(report.probes.begin(), report.probes.end(),
                              [&](const ProbeOutcome& p) { return p.probe == probe; });
    if (owner == report.probes.end()) {
      throw std::runtime_error("measurement " + entry.value("key", "?") + " names unknown probe " +
                               probe);
    }
    owner->measurements.push_back(entry.get<Measurement>());
  }
  return report;
}

}  // namespace pipecheck
