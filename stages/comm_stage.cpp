// The comm stage: NCCL collectives' bus bandwidth (comm/).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "ceilings/ceilings.hpp"
#include "ceilings/measurement_gpu.hpp"
#include "ceilings/nccl_port_selection.hpp"
#include "core/figure_text.hpp"
#include "core/stage_names.hpp"
#include "comm/comm_cases.hpp"
#include "stages/stage_rules.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

namespace {

using namespace stage_rules;

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
  if (const GpuInfo* one = find_gpu(m, inventory)) return {one};
  for (const auto& gpu : inventory.gpus) gpus.push_back(&gpu);
  return gpus;
}

// Bus bandwidth against NVLink when every pair of the job's GPUs shares it, else PCIe, and
// across nodes the network (ceilings/ceilings collective_ceiling); the derivation says which bounds.
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

std::uint64_t bytes_param(const Measurement& m) {
  const std::string text = param(m, "bytes");
  return text.empty() || text.find_first_not_of("0123456789") != std::string::npos ? 0 : std::stoull(text);
}

// The series a measurement belongs to: its collective, dtype and job shape.
std::string comm_series(const Measurement& m) {
  std::string series;
  for (const char* name : {"collective", "dtype", "ranks", "nodes"}) {
    series += '\n';  // appended apart: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
    series += param(m, name);
  }
  return series;
}

// Small messages are latency-bound by nature (nccl-tests' busbw climbs with size), so a sweep is
// judged at its largest size, per collective, dtype and job shape.
StageChecks comm_checks(const Measurement& m, const StageContext& context) {
  if (param(m, "ranks") == "1") {
    return not_judged("one rank: NCCL's path and its data check only; its bus bandwidth is 0 by the formula");
  }
  // The largest size of each series, gathered once a probe.
  const Siblings::Table& largest_by_series = context.siblings.table("comm.largest_bytes", [](const std::vector<Measurement>& all) {
    Siblings::Table largest;
    for (const auto& other : all) {
      if (other.stage != stage_name::comm) continue;
      double& bytes = largest[comm_series(other)];
      bytes = std::max(bytes, static_cast<double>(bytes_param(other)));
    }
    return largest;
  });
  const auto found = largest_by_series.find(comm_series(m));
  const auto largest = static_cast<std::uint64_t>(found == largest_by_series.end() ? 0 : found->second);
  if (bytes_param(m) < largest) {
    return not_judged("smaller messages are latency-bound; judged at the largest size (" + std::to_string(largest) + " bytes)");
  }
  return percent_check("comm.busbw_min_percent");
}

// nccl-tests' bus factor of the measurement: its param, else 2(n-1)/n from its ranks, else 2.
double all_reduce_factor(const Measurement& m) {
  const std::string recorded = param(m, "bus_factor");
  if (!recorded.empty() && std::atof(recorded.c_str()) > 0) return std::atof(recorded.c_str());
  const int ranks = int_param(m.params, "ranks", 0);
  return ranks > 0 ? 2.0 * (ranks - 1) / ranks : 2.0;
}

std::optional<Ceiling> comm_rule(const Measurement& m, const Inventory& full_speed) {
  auto bound = comm_ceiling(m, full_speed, Siblings{}).ceiling;
  if (!bound || param(m, "collective") != "all_reduce") return bound;
  const double factor = all_reduce_factor(m);
  if (factor <= 1) return bound;
  char text[64];
  std::snprintf(text, sizeof text, " x %.3g", factor);
  bound->derivation = figure(bound->value * factor, bound->unit) + " = (" + bound->derivation + ")" + text +
                      " bus factor: with in-network reduction (NVLS, SHARP) an all-reduce moves each byte "
                      "once each way, so its bus bandwidth may exceed the link by that factor";
  bound->value *= factor;
  return bound;
}

}  // namespace

StageSpec comm_stage() {
  StageSpec s;
  s.name = stage_name::comm;
  s.title = "NCCL collectives";
  s.description =
      "NCCL bus bandwidth: all-reduce, all-gather, reduce-scatter, broadcast in float and bf16, "
      "8 B to 1 GiB, data-checked; one process for all local GPUs, or one rank a GPU under mpirun/srun";
  // Built in every build: without NCCL (or CUDA) it says "skipped: built without NCCL".
  s.executable = "pipecheck-comm";
  s.runs_on_gpu = true;
  s.planned_cases = [](const Inventory& inventory, ProbeMode mode) {
    const auto gpus = stage_rules::cuda_gpus(inventory);
    const std::uint64_t memory = gpus.empty() ? 0 : gpus.front()->memory_bytes.value_or(0);
    return planned_comm_cases(static_cast<int>(gpus.size()), memory, mode);
  };
  s.fixed_repetitions = true;  // every rank runs the same cases, a fixed count (comm/comm_probe.cpp)
  s.ceiling = [](const Measurement& m, const StageContext& c) { return comm_ceiling(m, c.inventory, c.siblings); };
  s.physical = [](const Measurement& m, const Inventory&, const Inventory& full_speed) { return comm_rule(m, full_speed); };
  s.checks = comm_checks;
  s.profile_text = R"(# NCCL collectives (stage comm): bus bandwidth (nccl-tests' busbw) at the largest size of the
# sweep (smaller messages are latency-bound), % of what bounds it per direction: NVLink when every
# pair of the job's GPUs shares it, else the slowest GPU's PCIe link, across nodes the node's
# network when lower. nccl-tests reaches ~80% on healthy machines (8x H100 all-reduce, ring:
# ~370 of 450 GB/s; 8x A100: ~230 of 300); a mis-wired or mis-placed job falls far below.
comm.busbw_min_percent = 60
)";
  s.profile_keys = {
      {"comm.busbw_min_percent", ProfileValueKind::percent,
       "NCCL bus bandwidth at the largest size, min % of NVLink (else PCIe; across nodes the network) per direction"},
  };
  s.advice =
      "Check the NVLink and NVSwitch state (nvidia-smi nvlink -s, nvidia-smi topo -m), the transport NCCL "
      "chose (NCCL_DEBUG=INFO) and, across nodes, the NICs NCCL may use (NCCL_IB_HCA, NCCL_SOCKET_IFNAME).";
  s.measurement_contract =
      "collective (all_reduce|all_gather|reduce_scatter|broadcast), dtype, op, bytes, count, ranks, nodes, mode, "
      "gpu_bdfs (the job's GPUs), bus_factor, iters, verified, wrong, nccl_version, nccl_env; unit GB/s as bus "
      "bandwidth (nccl-tests busbw). Ceiling: collective_ceiling (NVLink when every pair of the job's GPUs shares "
      "it, else the slowest PCIe link, across nodes the NIC when lower); the derivation names which bounds. Judged "
      "at the largest size.";
  return s;
}

}  // namespace pipecheck
