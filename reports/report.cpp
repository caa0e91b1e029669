// Attaching ceilings to measurements, and the JSON form of a report (report.json).
#include "reports/report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "core/number_input.hpp"
#include "core/json_field_error.hpp"
#include "core/json_records.hpp"
#include "core/text_escape.hpp"
#include "reports/ceilings.hpp"
#include "reports/scaling_pairs.hpp"

namespace pipecheck {

using nlohmann::json;

namespace {

// Stage -> how its ceiling is found. One entry per stage; stages without one say so. A rule
// sees the other measurements of the same probe (decode scaling is held against 1 thread).
// The same probe's measurements, by key: found once a probe, not searched once a measurement
// (a search per measurement made a large report quadratic). The first of a key, as a search found.
struct Siblings {
  explicit Siblings(const std::vector<Measurement>& all) {
    for (const auto& m : all) by_key.emplace(m.key, &m);
  }
  std::map<std::string, const Measurement*> by_key;
};
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
  const std::string kind = param(m, "disk_kind");
  if (kind == "network_fs") return CeilingResult::unknown("no ceiling: network filesystem");
  if (kind == "loop") return CeilingResult::unknown("no ceiling: loop device (the disk under its backing file bounds it)");
  if (kind == "memory_disk") return CeilingResult::unknown("no ceiling: memory-backed disk (ram, zram)");
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
  const auto reference = siblings.by_key.find(one_thread_key(m.key));
  if (reference != siblings.by_key.end()) {
    const Measurement& other = *reference->second;
    if (other.unit != m.unit || other.stats.median <= 0) {
      return CeilingResult::unknown("no 1-thread measurement to scale from");
    }
    const double value = threads * other.stats.median;
    char text[200];
    std::snprintf(text, sizeof text, "%.1f %s = %d threads x %.1f %s (1-thread median): perfect scaling",
                  value, m.unit.c_str(), threads, other.stats.median, m.unit.c_str());
    return CeilingResult::known({value, m.unit, "linear scaling", text});
  }
  return CeilingResult::unknown("no 1-thread measurement to scale from");
}

// "0000:17:00.0" and "17:00.0" name the same function; NVML writes 8-digit domains, sysfs 4.
std::string normal_bdf(std::string bdf) {
  for (auto& c : bdf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colons = std::count(bdf.begin(), bdf.end(), ':');
  if (colons == 2) bdf = bdf.substr(bdf.find(':') + 1);
  return bdf;
}

// The GPU a measurement ran on: by PCI bus id (STYLE 12), else by CUDA index.
const GpuInfo* gpu_of(const Measurement& m, const Inventory& inventory) {
  const std::string bdf = param(m, "gpu_bdf");
  if (!bdf.empty()) {
    for (const auto& gpu : inventory.gpus) {
      if (!gpu.pci_bdf.empty() && normal_bdf(gpu.pci_bdf) == normal_bdf(bdf)) return &gpu;
    }
  }
  const std::string index = param(m, "gpu");
  if (!index.empty() && index.find_first_not_of("0123456789") == std::string::npos) {
    for (const auto& gpu : inventory.gpus) {
      if (gpu.cuda_index == std::atoi(index.c_str())) return &gpu;
    }
  }
  return nullptr;
}

CeilingResult no_gpu(const Measurement& m) {
  const std::string bdf = param(m, "gpu_bdf"), index = param(m, "gpu");
  if (bdf.empty() && index.empty()) return CeilingResult::unknown("unknown: the measurement names no GPU");
  return CeilingResult::unknown("unknown: GPU " + (bdf.empty() ? "cuda:" + index : bdf) +
                                " is not in the inventory");
}

CeilingResult compute_ceiling(const Measurement& m, const Inventory& inventory, const Siblings&) {
  const auto dtype = parse_dtype(param(m, "dtype"));
  if (!dtype) return CeilingResult::unknown("unknown: dtype '" + param(m, "dtype") + "' has no compute ceiling");
  const GpuInfo* gpu = gpu_of(m, inventory);
  if (!gpu) return no_gpu(m);
  const ComputeCeilings ceilings = gpu_compute_ceiling(*gpu, *dtype);
  return ceilings.preferred();
}

CeilingResult gpu_memory_rule(const Measurement& m, const Inventory& inventory, const Siblings&) {
  const GpuInfo* gpu = gpu_of(m, inventory);
  if (!gpu) return no_gpu(m);
  const ComputeCeilings ceilings = gpu_memory_ceiling(*gpu);
  return ceilings.preferred();
}

// Host<->device copies: the GPU's PCIe link per direction; both directions at once against twice.
CeilingResult pcie_ceiling(const Measurement& m, const Inventory& inventory, const Siblings&) {
  const GpuInfo* gpu = gpu_of(m, inventory);
  if (!gpu) return no_gpu(m);
  CeilingResult link = pcie_link_ceiling(gpu->pcie);
  if (link.ceiling && param(m, "direction") == "bidir") {
    Ceiling& c = *link.ceiling;
    char text[64];
    std::snprintf(text, sizeof text, "%.1f %s = 2 x ", 2 * c.value, c.unit.c_str());
    c.value *= 2;
    c.derivation = text + c.derivation + " (both directions)";
  }
  return link;
}

// The GPUs of a collective on the inventory's host: params gpu_bdfs ("0000:17:00.0,..."), else
// the one gpu_bdf/gpu names, else every GPU of the inventory. `missing` names a listed GPU the
// inventory lacks.
std::vector<const GpuInfo*> comm_gpus(const Measurement& m, const Inventory& inventory, std::string& missing) {
  std::vector<const GpuInfo*> gpus;
  const std::string list = param(m, "gpu_bdfs");
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string bdf = list.substr(start, end - start);
    start = end + 1;
    const auto found = std::find_if(inventory.gpus.begin(), inventory.gpus.end(), [&](const GpuInfo& g) {
      return !g.pci_bdf.empty() && normal_bdf(g.pci_bdf) == normal_bdf(bdf);
    });
    if (found == inventory.gpus.end()) {
      missing = bdf;
      return {};
    }
    gpus.push_back(&*found);
  }
  if (!gpus.empty()) return gpus;
  if (const GpuInfo* one = gpu_of(m, inventory)) return {one};
  for (const auto& gpu : inventory.gpus) gpus.push_back(&gpu);
  return gpus;
}

// Bus bandwidth against NVLink when every pair of the job's GPUs shares it, else PCIe, and
// across nodes the network (reports/ceilings collective_ceiling); the derivation says which bounds.
CeilingResult comm_ceiling(const Measurement& m, const Inventory& inventory, const Siblings&) {
  if (param(m, "ranks") == "1") return CeilingResult::unknown("none: one rank moves nothing between GPUs");
  std::string missing;
  const std::vector<const GpuInfo*> gpus = comm_gpus(m, inventory, missing);
  if (!missing.empty()) return CeilingResult::unknown("unknown: GPU " + missing + " is not in the inventory");
  if (gpus.empty()) return CeilingResult::unknown("unknown: no GPU in the inventory");
  const std::string nodes = param(m, "nodes");
  const int node_count = nodes.empty() ? 1 : std::max(1, std::atoi(nodes.c_str()));
  // The ports the run's NCCL variables let NCCL use, as they were recorded with the result.
  return collective_ceiling(gpus, inventory.topology, inventory.nics, node_count,
                            nccl_port_selection(param(m, "nccl_env")));
}

const std::map<std::string, CeilingRule>& ceiling_rules() {
  static const std::map<std::string, CeilingRule> rules = {
      {"hostmem", host_memory_ceiling},
      {"storage", storage_ceiling},
      {"decode", decode_ceiling},
      {"compute", compute_ceiling},
      {"memory", gpu_memory_rule},
      {"pcie", pcie_ceiling},
      {"comm", comm_ceiling},
  };
  return rules;
}

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

const GpuInfo* find_gpu(const Measurement& measurement, const Inventory& inventory) {
  return gpu_of(measurement, inventory);
}

namespace {

CeilingResult ceiling_among(const Measurement& measurement, const Inventory& inventory, const Siblings& siblings) {
  const auto& rules = ceiling_rules();
  const auto rule = rules.find(measurement.stage);
  if (rule == rules.end()) {
    return CeilingResult::unknown("no ceiling model for stage '" + measurement.stage + "'");
  }
  return rule->second(measurement, inventory, siblings);
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
    attach_percentages(probe.measurements);  // thread scaling pair by pair (reports/scaling_pairs)
  }
}

namespace {

json quiet_check_json(const std::optional<QuietCheck>& check) {
  if (!check) return nullptr;
  json j = check->conditions;
  j["threshold_percent"] = check->threshold_percent;
  j["quiet"] = check->quiet;
  j["waited_seconds"] = check->waited_seconds;
  return j;
}

std::optional<QuietCheck> quiet_check_from(const json& document) {
  if (!document.contains("quiet_check") || document["quiet_check"].is_null()) return std::nullopt;
  return in_field(document, "quiet_check", [](const json& j) {
    QuietCheck check;
    check.conditions = j.get<RunConditions>();
    check.threshold_percent = field_or(j, "threshold_percent", 20.0);
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
