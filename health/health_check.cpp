// The rules of `pipecheck check`: which facts make a node unhealthy, and the drain reason.
#include "health/health_check.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "judge/judge.hpp"
#include "report/report.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

std::string gpu_subject(const std::string& bus_id, const std::string& name = {}) {
  return "gpu " + bus_id + (name.empty() ? "" : " (" + name + ")");
}

const char* xid_meaning(int xid) {
  switch (xid) {
    case 48: return "double-bit ECC error";
    case 63: return "row remapping or page retirement event";
    case 64: return "row remapping or page retirement failure";
    case 74: return "NVLink error";
    case 79: return "fallen off the bus";
    case 92: return "high single-bit ECC error rate";
    case 94: return "contained ECC error";
    case 95: return "uncontained ECC error";
    case 119: return "GSP RPC timeout";
    case 120: return "GSP error";
    case 140: return "unrecovered ECC error";
    default: return "";
  }
}

}  // namespace

std::string problem_line(const HealthProblem& problem) {
  const std::string level = problem.verdict == Verdict::fail ? "FAIL" : "INCONCLUSIVE";
  return level + " " + problem.subject + ": " + problem.text;
}

bool xid_means_unhealthy(int xid) { return *xid_meaning(xid) != '\0'; }

std::vector<HealthProblem> inventory_problems(const Inventory& inventory, const Profile& profile) {
  std::vector<HealthProblem> problems;
  const Report no_probes;
  for (const Judgement& judgement : judge_inventory(no_probes, inventory, profile)) {
    if (!is_failure(judgement.verdict)) continue;  // a link slowed at idle is a warn, not a fault
    problems.push_back({Verdict::fail, judgement.what, judgement.explanation});
  }
  return problems;
}

bool seen_by_driver(const GpuInfo& gpu) {
  const auto& by = gpu.seen_by;
  // An inventory of version 1 names no source: it listed only GPUs CUDA or NVML saw.
  if (by.empty()) return true;
  return std::find(by.begin(), by.end(), "cuda") != by.end() || std::find(by.begin(), by.end(), "nvml") != by.end();
}

int driver_gpu_count(const Inventory& inventory) {
  return static_cast<int>(std::count_if(inventory.gpus.begin(), inventory.gpus.end(), seen_by_driver));
}

std::vector<HealthProblem> gpu_health_problems(const std::vector<GpuHealth>& gpus) {
  std::vector<HealthProblem> problems;
  for (const GpuHealth& gpu : gpus) {
    const std::string subject = gpu_subject(gpu.bus_id, gpu.name);
    auto fail = [&](std::string text) { problems.push_back({Verdict::fail, subject, std::move(text)}); };
    if (gpu.retired_pages_pending.value_or(false)) fail("retired pages pending: reset the GPU");
    if (gpu.row_remap_failed.value_or(false)) fail("row remapping failed: the GPU needs replacing");
    if (gpu.row_remap_pending.value_or(false)) fail("remapped rows pending: reset the GPU");
    if (gpu.ecc_volatile_uncorrected.value_or(0) > 0) {
      fail(std::to_string(*gpu.ecc_volatile_uncorrected) +
           " volatile double-bit ECC error(s) since the driver loaded");
    }
    if (gpu.clock_event_mask) {
      if (const std::uint64_t failing = failing_clock_event_bits(*gpu.clock_event_mask)) {
        fail("held back now by " + clock_event_reasons_text(failing));
      }
    }
    for (const std::string& error : gpu.errors) fail("NVML: " + error);
  }
  return problems;
}

std::vector<HealthProblem> xid_problems(const std::vector<BootXid>& xids) {
  // Per GPU, per Xid: how often, in order of first appearance.
  std::map<std::string, std::vector<std::pair<int, int>>> by_gpu;
  std::vector<std::string> order;
  for (const BootXid& event : xids) {
    if (!xid_means_unhealthy(event.xid)) continue;
    if (!by_gpu.count(event.bus_id)) order.push_back(event.bus_id);
    auto& counts = by_gpu[event.bus_id];
    const auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == event.xid; });
    if (it == counts.end()) {
      counts.emplace_back(event.xid, 1);
    } else {
      ++it->second;
    }
  }
  std::vector<HealthProblem> problems;
  for (const std::string& bus_id : order) {
    std::string text;
    for (const auto& [xid, count] : by_gpu[bus_id]) {
      text += (text.empty() ? "" : ", ") + ("Xid " + std::to_string(xid) + " (" + xid_meaning(xid) + ")") +
              (count > 1 ? " x" + std::to_string(count) : "");
    }
    problems.push_back({Verdict::fail, gpu_subject(bus_id), text + " since boot"});
  }
  return problems;
}

ExitCode check_exit_code(const std::vector<HealthProblem>& problems, bool prolog) {
  ExitCode result = ExitCode::ok;
  for (const HealthProblem& problem : problems) {
    if (is_failure(problem.verdict)) result = combine(result, ExitCode::failed);
    if (problem.verdict == Verdict::inconclusive && !prolog) result = combine(result, ExitCode::inconclusive);
  }
  return result;
}

std::string drain_reason(const std::vector<HealthProblem>& problems) {
  constexpr std::size_t limit = 99;  // Slurm shows the reason whole under 100 characters
  std::vector<const HealthProblem*> failures;
  for (const HealthProblem& problem : problems) {
    if (is_failure(problem.verdict)) failures.push_back(&problem);
  }
  if (failures.empty()) return "";
  const std::string more = failures.size() > 1 ? " (+" + std::to_string(failures.size() - 1) + " more)" : "";
  const std::string raw = failures.front()->subject + ": " + failures.front()->text;
  // Printable ASCII without quotes, '=' or backslashes; runs of anything else become one space.
  std::string clean;
  for (const char c : raw) {
    const bool keep = c > ' ' && c < 127 && c != '"' && c != '\'' && c != '=' && c != '\\' && c != '`';
    if (keep) {
      clean += c;
    } else if (!clean.empty() && clean.back() != ' ') {
      clean += ' ';
    }
  }
  while (!clean.empty() && clean.back() == ' ') clean.pop_back();
  const std::string prefix = "pipecheck: ";
  const std::size_t room = limit - prefix.size() - more.size();
  if (clean.size() > room) clean = clean.substr(0, room - 3) + "...";
  return prefix + clean + more;
}

}  // namespace pipecheck
