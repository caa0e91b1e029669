// Building the history's record of one run from its report and inventory.
#include "history/history_record.hpp"

#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "core/json_records.hpp"

namespace pipecheck {

namespace {

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

bool is_adverse(Verdict verdict) {
  return verdict == Verdict::fail || verdict == Verdict::invalid || verdict == Verdict::inconclusive ||
         verdict == Verdict::warn;
}

void add_link(std::vector<HistoryLink>& links, const std::string& device, const PcieLink& link) {
  if (!link.current_gts && !link.current_width) return;
  links.push_back({device, link.current_gts, link.current_width, link.max_gts, link.max_width, link.downtrained()});
}

}  // namespace

std::string inventory_fingerprint(const Inventory& inventory) {
  nlohmann::json facts;
  facts["cpu"] = {inventory.cpu.model, inventory.cpu.sockets.value_or(0), inventory.cpu.logical_cpus.value_or(0)};
  facts["memory"] = inventory.memory.total_bytes.value_or(0);
  for (const auto& gpu : inventory.gpus) facts["gpus"].push_back({gpu.name, gpu.uuid, gpu.pci_bdf});
  for (const auto& disk : inventory.disks) facts["disks"].push_back({disk.name, disk.model, disk.size_bytes ? nlohmann::json(*disk.size_bytes) : nlohmann::json(nullptr)});
  return fnv1a_hex(facts.dump());
}

HistoryRun history_run_from(const Report& report, const Inventory* inventory, const std::string& command,
                            const std::string& source) {
  HistoryRun run;
  run.host = report.host;
  run.command = command;
  run.started_utc = report.started_utc;
  run.finished_utc = report.finished_utc;
  run.mode = report.mode;
  run.overall = to_string(report.judged.overall);
  run.pipecheck_version = report.pipecheck_version;
  run.report_version = report.version;
  run.source = source;

  std::map<std::string, std::string> verdict_of;
  for (const auto& j : report.judged.judgements) {
    verdict_of[j.subject] = to_string(j.verdict);
    if (is_adverse(j.verdict)) run.verdicts.push_back({j.subject, j.stage, to_string(j.verdict), j.explanation});
  }
  for (const auto& probe : report.probes) {
    HistoryProbe p{probe.stage, probe.probe, to_string(probe.status), probe.reason, probe.seconds, ""};
    if (probe.conditions) p.conditions_json = nlohmann::json(*probe.conditions).dump();
    run.probes.push_back(std::move(p));
    if (probe.status == ProbeStatus::failed) {
      const bool hang = probe.reason.find("timed out") != std::string::npos;
      run.faults.push_back({hang ? "hang" : "crash", probe.stage + ": " + probe.reason});
    }
    for (const auto& wrong : probe.wrong_results) run.faults.push_back({"wrong result", wrong});
    for (const auto& m : probe.measurements) {
      HistoryMeasurement h;
      h.key = m.key;
      h.stage = m.stage;
      h.what = m.what;
      h.unit = m.unit;
      h.stats = m.stats;
      h.repetitions = m.repetitions;
      h.noise_percent = m.noise_percent;
      h.percent_of_ceiling = m.percent_of_ceiling;
      const auto v = verdict_of.find(m.key);
      if (v != verdict_of.end()) h.verdict = v->second;
      if (probe.conditions) h.other_cpu_percent = probe.conditions->other_cpu_percent;
      run.measurements.push_back(std::move(h));
    }
  }
  if (inventory != nullptr) {
    run.fingerprint = inventory_fingerprint(*inventory);
    run.software_json = nlohmann::json(*inventory).value("software", nlohmann::json::object()).dump();
    for (std::size_t i = 0; i < inventory->gpus.size(); ++i) {
      const auto& gpu = inventory->gpus[i];
      add_link(run.links, "gpu" + std::to_string(i) + " " + gpu.pci_bdf, gpu.pcie);
    }
    for (const auto& disk : inventory->disks) add_link(run.links, disk.name + " " + disk.pci_bdf, disk.pcie);
  }
  return run;
}

}  // namespace pipecheck
