// Attaching ceilings to measurements, and the JSON form of a report (report.json).
#include "reports/report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "core/json_records.hpp"
#include "reports/ceilings.hpp"

namespace pipecheck {

using nlohmann::json;

namespace {

// Stage -> how its ceiling is found. One entry per stage; stages without one say so. A rule
// sees the other measurements of the same probe (decode scaling is held against 1 thread).
using Siblings = std::vector<Measurement>;
using CeilingRule = CeilingResult (*)(const Measurement&, const Inventory&, const Siblings&);

CeilingResult host_memory_ceiling(const Measurement&, const Inventory& inventory, const Siblings&) {
  return dram_ceiling(inventory.memory);
}

std::string param(const Measurement& m, const std::string& name) {
  const auto it = m.params.find(name);
  return it == m.params.end() ? "" : it->second;
}

// Storage: the link of the disk the path lives on. Operations per second have no link ceiling.
CeilingResult storage_ceiling(const Measurement& m, const Inventory& inventory, const Siblings&) {
  if (m.unit != "GB/s") {
    return CeilingResult::unknown("no hardware ceiling for " + m.unit + ": a link bounds bytes, not operations");
  }
  if (param(m, "disk_kind") == "network_fs") return CeilingResult::unknown("no ceiling: network filesystem");
  const std::string device = param(m, "device");
  if (device.empty()) return CeilingResult::unknown("unknown: the device behind the path was not found");
  for (const auto& disk : inventory.disks) {
    if (disk.name == device) return disk_read_ceiling(disk);
  }
  return CeilingResult::unknown("unknown: device " + device + " is not in the inventory");
}

// "decode/full/threads:8" -> "decode/full/threads:1".
std::string one_thread_key(const std::string& key) {
  const auto at = key.rfind("threads:");
  if (at == std::string::npos) return "";
  const auto end = key.find('/', at);
  return key.substr(0, at) + "threads:1" + (end == std::string::npos ? "" : key.substr(end));
}

// CPU decode has no hardware figure; an N-thread rate is held against N x the 1-thread rate
// (perfect scaling), so the percentage is the scaling efficiency.
CeilingResult decode_ceiling(const Measurement& m, const Inventory&, const Siblings& siblings) {
  const std::string threads_text = param(m, "threads");
  const int threads = threads_text.empty() ? 0 : std::atoi(threads_text.c_str());
  if (threads <= 1) {
    return CeilingResult::unknown("no hardware ceiling for CPU decode; the 1-thread rate is the per-core reference");
  }
  const std::string reference_key = one_thread_key(m.key);
  for (const auto& other : siblings) {
    if (other.key != reference_key || other.unit != m.unit || other.stats.median <= 0) continue;
    const double value = threads * other.stats.median;
    char text[200];
    std::snprintf(text, sizeof text, "%.1f %s = %d threads x %.1f %s (1-thread median): perfect scaling",
                  value, m.unit.c_str(), threads, other.stats.median, m.unit.c_str());
    return CeilingResult::known({value, m.unit, "linear scaling", text});
  }
  return CeilingResult::unknown("no 1-thread measurement to scale from");
}

const std::map<std::string, CeilingRule>& ceiling_rules() {
  static const std::map<std::string, CeilingRule> rules = {
      {"hostmem", host_memory_ceiling},
      {"storage", storage_ceiling},
      {"decode", decode_ceiling},
  };
  return rules;
}

}  // namespace

CeilingResult ceiling_for(const Measurement& measurement, const Inventory& inventory,
                          const std::vector<Measurement>& siblings) {
  const auto& rules = ceiling_rules();
  const auto rule = rules.find(measurement.stage);
  if (rule == rules.end()) {
    return CeilingResult::unknown("no ceiling model for stage '" + measurement.stage + "'");
  }
  return rule->second(measurement, inventory, siblings);
}

void attach_ceilings(Report& report, const Inventory& inventory) {
  for (auto& probe : report.probes) {
    for (auto& m : probe.measurements) {
      m.ceiling = ceiling_for(m, inventory, probe.measurements);
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
