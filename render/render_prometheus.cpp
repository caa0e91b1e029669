// Prometheus textfile renderer: one HELP/TYPE pair a family, its samples together, no duplicate
// label sets (the collector rejects a file with any), no NaN for what is unknown, base units.
#include "render/render_prometheus.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <sstream>

#include "ceilings/measurement_gpu.hpp"
#include "render/escape.hpp"

namespace pipecheck {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string labels_text(const Labels& labels) {
  if (labels.empty()) return "";
  std::string text = "{";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    text += (i ? "," : "") + labels[i].first + "=\"" + prometheus_label_escape(labels[i].second) + "\"";
  }
  return text + "}";
}

class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}

  // `key` tells this sample from another with the same labels (a measurement's key); it is
  // added as a label only when two samples would otherwise collide.
  void add(const Labels& labels, double value, const std::string& key = "") {
    if (!std::isfinite(value)) return;
    samples_.push_back({labels, value, key});
  }

  const std::string& name() const { return name_; }

  void write(std::ostringstream& out) const {
    if (samples_.empty()) return;
    std::map<std::string, int> uses;
    for (const auto& s : samples_) ++uses[labels_text(s.labels)];
    out << "# HELP " << name_ << " " << prometheus_help_escape(help_) << "\n# TYPE " << name_ << " gauge\n";
    std::set<std::string> written;
    for (const auto& s : samples_) {
      Labels labels = s.labels;
      if (uses[labels_text(labels)] > 1 && !s.key.empty()) labels.emplace_back("key", s.key);
      const std::string text = name_ + labels_text(labels);
      if (!written.insert(text).second) continue;  // the same sample twice is one sample
      char number[40];
      std::snprintf(number, sizeof number, "%.10g", s.value);
      out << text << " " << number << "\n";
    }
  }

 private:
  struct Sample {
    Labels labels;
    double value;
    std::string key;
  };
  std::string name_;
  std::string help_;
  std::vector<Sample> samples_;
};

// "2026-11-30T08:00:09Z" -> seconds since the epoch; empty when it does not parse.
std::optional<double> epoch_seconds(const std::string& iso) {
  std::tm tm{};
  char zone = 0;
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &zone) != 7 ||
      zone != 'Z') {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

// A display unit as a Prometheus quantity in base units.
struct Quantity {
  std::string suffix;  // "bytes_per_second"
  double scale;        // base units per display unit
  std::string words;   // for HELP
};

Quantity quantity_of(const std::string& unit) {
  static const std::map<std::string, Quantity> kQuantities = {
      {"GB/s", {"bytes_per_second", 1e9, "bytes per second"}},
      {"TFLOP/s", {"flop_per_second", 1e12, "floating-point operations per second"}},
      {"TOPS", {"operations_per_second", 1e12, "integer operations per second"}},
      {"IOPS", {"io_operations_per_second", 1, "I/O operations (reads) per second"}},
      {"images/s", {"images_per_second", 1, "images per second"}},
      {"items/s", {"items_per_second", 1, "items per second"}},
      {"samples/s", {"samples_per_second", 1, "samples per second"}},
  };
  const auto it = kQuantities.find(unit);
  if (it != kQuantities.end()) return it->second;
  // A unit this table does not know: its words, snake_case, "/s" as "_per_second".
  std::string suffix;
  for (std::size_t i = 0; i < unit.size(); ++i) {
    const char c = unit[i];
    if (c == '/' && i + 1 < unit.size() && unit[i + 1] == 's') {
      suffix += "_per_second";
      ++i;
    } else if (std::isalnum(static_cast<unsigned char>(c))) {
      suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!suffix.empty() && suffix.back() != '_') {
      suffix += '_';
    }
  }
  while (!suffix.empty() && suffix.front() == '_') suffix.erase(suffix.begin());
  return {suffix.empty() ? "value" : suffix, 1, unit.empty() ? "no unit" : unit};
}

std::string param(const Measurement& m, const std::string& name) {
  const auto it = m.params.find(name);
  return it == m.params.end() ? "" : it->second;
}

// The params that say what was measured, each a label of its own (in this order).
const char* const kDimensions[] = {"op",        "set",        "pattern", "device", "direction",
                                   "host_memory", "engine",   "numa",    "collective", "dtype",
                                   "threads",   "bytes",      "bs",      "qd",     "ranks",
                                   "nodes",     "concurrent_gpus"};

// dcgm-exporter's labels of one GPU, so `* on(UUID)` joins pipecheck's and DCGM's series.
Labels gpu_labels(const GpuInfo& gpu, const Inventory& inventory, const std::string& host) {
  // dcgm-exporter's gpu is the NVML index: NVML numbers GPUs by PCI bus id.
  std::vector<std::string> bus_ids;
  for (const auto& g : inventory.gpus) bus_ids.push_back(nvml_bus_id(g.pci_bdf));
  std::sort(bus_ids.begin(), bus_ids.end());
  const std::string bus_id = nvml_bus_id(gpu.pci_bdf);
  const auto position = std::find(bus_ids.begin(), bus_ids.end(), bus_id) - bus_ids.begin();
  Labels labels = {{"gpu", std::to_string(position)}};
  if (!gpu.uuid.empty()) labels.emplace_back("UUID", gpu.uuid);
  if (!gpu.pci_bdf.empty()) labels.emplace_back("pci_bus_id", bus_id);
  if (!gpu.name.empty()) labels.emplace_back("modelName", gpu.name);
  labels.emplace_back("Hostname", host);
  return labels;
}

Labels measurement_labels(const Measurement& m, const Inventory& inventory, const std::string& host) {
  Labels labels = {{"stage", m.stage}};
  const std::string op = !param(m, "op").empty() ? param(m, "op") : param(m, "case");
  for (const char* name : kDimensions) {
    const std::string value = std::string(name) == "op" ? op : param(m, name);
    if (!value.empty()) labels.emplace_back(name, value);
  }
  if (!param(m, "m").empty() && !param(m, "n").empty() && !param(m, "k").empty()) {
    labels.emplace_back("shape", param(m, "m") + "x" + param(m, "n") + "x" + param(m, "k"));
  }
  if (const GpuInfo* gpu = find_gpu(m, inventory)) {
    for (auto& label : gpu_labels(*gpu, inventory, host)) labels.push_back(std::move(label));
  } else if (!param(m, "gpu").empty() && param(m, "gpu").find(',') == std::string::npos) {
    labels.emplace_back("gpu", param(m, "gpu"));
  } else if (!param(m, "gpu").empty()) {
    labels.emplace_back("gpus", param(m, "gpu"));  // several GPUs at once
  }
  return labels;
}

// The GPU an inventory verdict is about: "inventory/gpu3/pcie_link" -> the GPU with CUDA index 3.
const GpuInfo* gpu_of_subject(const std::string& subject, const Inventory& inventory) {
  const std::string prefix = "inventory/gpu";
  if (subject.rfind(prefix, 0) != 0) return nullptr;
  int index = 0;
  std::size_t at = prefix.size();
  if (at >= subject.size() || !std::isdigit(static_cast<unsigned char>(subject[at]))) return nullptr;
  while (at < subject.size() && std::isdigit(static_cast<unsigned char>(subject[at]))) {
    index = index * 10 + (subject[at++] - '0');
    if (index > 100000) return nullptr;
  }
  for (const auto& gpu : inventory.gpus) {
    if (gpu.cuda_index == index) return &gpu;
  }
  return nullptr;
}

class MeasurementFamilies {
 public:
  void add(const Measurement& m, const Labels& labels) {
    const Quantity q = quantity_of(m.unit);
    family("pipecheck_measured_" + q.suffix,
           "Measured figure (median of the repetitions), in " + q.words + ".")
        .add(labels, m.stats.median * q.scale, m.key);
    if (m.ceiling.ceiling) {
      const Quantity cq = quantity_of(m.ceiling.ceiling->unit);
      family("pipecheck_ceiling_" + cq.suffix,
             "The hardware ceiling the measurement is held against, in " + cq.words + ".")
          .add(labels, m.ceiling.ceiling->value * cq.scale, m.key);
    }
  }

  void write(std::ostringstream& out) const {
    for (const auto& [name, f] : families_) f.write(out);
  }

 private:
  Family& family(const std::string& name, const std::string& help) {
    return families_.try_emplace(name, name, help).first->second;
  }
  std::map<std::string, Family> families_;  // by name: the same order every run
};

}  // namespace

std::string nvml_bus_id(const std::string& pci_bdf) {
  // domain:bus:device.function; sysfs gives a 4-digit domain in lower case.
  const auto first = pci_bdf.find(':');
  if (first == std::string::npos || pci_bdf.find(':', first + 1) == std::string::npos) return pci_bdf;
  std::string domain = pci_bdf.substr(0, first);
  if (domain.size() < 8) domain.insert(0, 8 - domain.size(), '0');
  std::string bus_id = domain + pci_bdf.substr(first);
  for (char& c : bus_id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return bus_id;
}

std::string render_prometheus(const Report& report, const Inventory& inventory, const Judged& judged,
                              const RenderExtras&) {
  const std::string host = report.host.empty() ? inventory.hostname : report.host;
  Family info("pipecheck_run_info", "The run: host, pipecheck version and mode (always 1).");
  Family overall("pipecheck_overall_verdict",
                 "The run's worst verdict as a number, worse is higher: skipped 0, info 1, pass 2, warn 3, "
                 "inconclusive 4, fail 5, invalid 6 (>= 5: the run failed).");
  Family verdict("pipecheck_verdict",
                 "One sample per verdict of the acceptance profile, worse is higher: skipped 0, info 1, pass 2, "
                 "warn 3, inconclusive 4, fail 5, invalid 6; the verdict is also the label.");
  Family ratio("pipecheck_ceiling_ratio", "Measured figure divided by its ceiling (1 = the ceiling).");
  Family probe_ok("pipecheck_probe_ok", "1 when the probe ran to the end, 0 when it was skipped, not built, "
                                        "failed or interrupted (status label).");
  Family probe_seconds("pipecheck_probe_duration_seconds", "How long the probe ran.");
  Family findings("pipecheck_findings", "Findings of the run by severity.");
  Family budget("pipecheck_budget_samples_per_second", "Samples per second each pipeline stage can deliver for "
                                                       "the given workload.");
  Family started("pipecheck_run_start_timestamp_seconds", "When the run started, seconds since the epoch.");
  Family finished("pipecheck_run_finished_timestamp_seconds", "When the run ended, seconds since the epoch.");
  MeasurementFamilies measured;

  info.add({{"Hostname", host}, {"version", report.pipecheck_version}, {"mode", report.mode}}, 1);
  std::map<std::string, Labels> labels_by_key;
  for (const auto& probe : report.probes) {
    probe_ok.add({{"probe", probe.probe}, {"stage", probe.stage}, {"status", to_string(probe.status)}},
                 probe.status == ProbeStatus::ok ? 1 : 0);
    probe_seconds.add({{"probe", probe.probe}, {"stage", probe.stage}}, probe.seconds);
    for (const auto& m : probe.measurements) {
      const Labels labels = measurement_labels(m, inventory, host);
      labels_by_key.emplace(m.key, labels);
      measured.add(m, labels);
      if (m.percent_of_ceiling) ratio.add(labels, *m.percent_of_ceiling / 100, m.key);
    }
  }
  for (const auto& j : judged.judgements) {
    Labels labels = {{"subject", j.subject}, {"stage", j.stage}, {"verdict", to_string(j.verdict)}};
    const GpuInfo* gpu = gpu_of_subject(j.subject, inventory);
    if (gpu) {
      for (auto& label : gpu_labels(*gpu, inventory, host)) labels.push_back(std::move(label));
    } else if (const auto it = labels_by_key.find(j.subject); it != labels_by_key.end()) {
      for (const auto& label : it->second) {
        if (label.first == "gpu" || label.first == "UUID" || label.first == "pci_bus_id" ||
            label.first == "modelName" || label.first == "Hostname") {
          labels.push_back(label);
        }
      }
    }
    verdict.add(labels, prometheus_verdict_value(j.verdict));
  }
  if (is_judged(judged)) overall.add({{"verdict", to_string(judged.overall)}}, prometheus_verdict_value(judged.overall));
  std::map<std::string, int> by_severity;
  for (const auto& f : judged.findings) ++by_severity[to_string(f.severity)];
  for (const auto& [severity, count] : by_severity) findings.add({{"severity", severity}}, count);
  if (judged.budget) {
    for (const auto& stage : judged.budget->stages) {
      if (!stage.samples_per_second) continue;
      budget.add({{"stage", stage.stage}, {"bounding", stage.stage == judged.budget->bounding_stage ? "true" : "false"}},
                 *stage.samples_per_second);
    }
  }
  if (auto when = epoch_seconds(report.started_utc)) started.add({}, *when);
  if (auto when = epoch_seconds(report.finished_utc)) finished.add({}, *when);

  std::ostringstream out;
  for (const Family* family : {&info, &overall, &verdict}) family->write(out);
  measured.write(out);
  for (const Family* family : {&ratio, &probe_ok, &probe_seconds, &findings, &budget, &started, &finished}) {
    family->write(out);
  }
  return out.str();
}

}  // namespace pipecheck
