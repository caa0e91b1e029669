// The hostmem stage: host memory bandwidth, the ceiling of pageable copies (hostmem/).
#include <algorithm>
#include <optional>

#include "ceilings/ceilings.hpp"
#include "core/stage_names.hpp"
#include "stages/stage_rules.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

namespace {

using namespace stage_rules;

StageChecks hostmem_checks(const Measurement& m, const StageContext& context) {
  const std::string op = param(m, "op");
  if (op != "read" && op != "write" && op != "memcpy") return not_judged("no threshold for host memory op '" + op + "'");
  const int threads = int_param(m.params, "threads", 0);
  // The most threads measured per op, gathered once a probe.
  const Siblings::Table& most_by_op = context.siblings.table("hostmem.most_threads", [](const std::vector<Measurement>& all) {
    Siblings::Table most;
    for (const auto& other : all) {
      if (other.stage != stage_name::hostmem) continue;
      double& n = most[param(other, "op")];
      n = std::max(n, static_cast<double>(int_param(other.params, "threads", 0)));
    }
    return most;
  });
  const auto found = most_by_op.find(op);
  const int most = found == most_by_op.end() ? 0 : static_cast<int>(found->second);
  if (threads < most) {
    return not_judged("judged at the most threads measured (" + std::to_string(most) + "); fewer threads reach less by nature");
  }
  return percent_check("hostmem." + op + "_min_percent");
}

}  // namespace

StageSpec hostmem_stage() {
  StageSpec s;
  s.name = stage_name::hostmem;
  s.title = "Host memory";
  s.description = "host memory bandwidth: memcpy, read, write; 1 thread and all cores";
  s.executable = "pipecheck-hostmem";
  s.planned_cases = [](const Inventory& inventory, ProbeMode) {
    std::vector<std::string> names;
    const int cpus = inventory.cpu.logical_cpus.value_or(1);
    for (const char* op : {"memcpy", "read", "write"}) {
      for (int threads : cpus > 1 ? std::vector<int>{1, cpus} : std::vector<int>{1}) {
        names.push_back(std::string("hostmem/") + op + "/real_time/threads:" + std::to_string(threads));
      }
    }
    return names;
  };
  s.ceiling = [](const Measurement&, const StageContext& c) { return dram_ceiling(c.inventory.memory); };
  s.physical = [](const Measurement&, const Inventory&, const Inventory& full_speed) {
    return dram_ceiling(full_speed.memory).ceiling;
  };
  s.checks = hostmem_checks;
  s.profile_text = R"(# Host memory (stage hostmem), % of the DRAM ceiling, at the most threads measured per op
# (single-thread figures are far below by nature; the findings compare them).
hostmem.read_min_percent = 60
hostmem.memcpy_min_percent = 50
hostmem.write_min_percent = off
)";
  s.profile_keys = {
      {"hostmem.read_min_percent", ProfileValueKind::percent, "host memory read at most threads, min % of DRAM"},
      {"hostmem.memcpy_min_percent", ProfileValueKind::percent, "host memcpy at most threads, min % of DRAM"},
      {"hostmem.write_min_percent", ProfileValueKind::percent, "host memory write at most threads, min % of DRAM"},
  };
  s.advice =
      "Check that every memory channel is populated and the DIMMs run at their rated speed (pipecheck "
      "inventory as root lists them), and the BIOS memory and NUMA settings.";
  s.measurement_contract = "op (memcpy|read|write), threads; unit GB/s. Ceiling: dram_ceiling.";
  return s;
}

}  // namespace pipecheck
