// The memory stage: GPU memory (HBM) bandwidth per GPU (memory/).
#include <optional>

#include "ceilings/ceilings.hpp"
#include "ceilings/measurement_gpu.hpp"
#include "ceilings/physical_ceiling.hpp"
#include "core/stage_names.hpp"
#include "memory/hbm_model.hpp"
#include "stages/stage_rules.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

namespace {

using namespace stage_rules;

CeilingResult gpu_memory_rule(const Measurement& m, const Inventory& inventory, const Siblings&) {
  const GpuInfo* gpu = find_gpu(m, inventory);
  if (!gpu) return no_gpu(m);
  const ComputeCeilings ceilings = gpu_memory_ceiling(*gpu);
  return ceilings.preferred();
}

StageChecks memory_checks(const Measurement& m, const StageContext&) {
  const std::string op = param(m, "op");
  if (op == "copy" || op == "read" || op == "write" || op == "triad") {
    return percent_check("memory.hbm_" + op + "_min_percent");
  }
  if (op == "d2d_memcpy") return percent_check("memory.d2d_memcpy_min_percent");
  return not_judged("no threshold for memory op '" + op + "'");
}

std::optional<Ceiling> memory_physical(const Measurement& m, const Inventory& as_found, const Inventory&) {
  const GpuInfo* gpu = find_gpu(m, as_found);
  if (!gpu) return std::nullopt;
  const ComputeCeilings c = gpu_memory_ceiling(*gpu);
  return larger(c.theoretical, c.vendor);
}

}  // namespace

StageSpec memory_stage() {
  StageSpec s;
  s.name = stage_name::memory;
  s.title = "GPU memory (HBM)";
  s.description = "HBM bandwidth: read/write/copy/triad kernels and cudaMemcpy D2D, arrays >= 4x L2 and >= 1 GiB";
  s.executable = "pipecheck-memory";
  s.probe_needs_cuda = true;
  s.runs_on_gpu = true;
  s.planned_cases = [](const Inventory& inventory, ProbeMode) {
    return planned_hbm_cases(static_cast<int>(stage_rules::cuda_gpus(inventory).size()));
  };
  s.ceiling = [](const Measurement& m, const StageContext& c) { return gpu_memory_rule(m, c.inventory, c.siblings); };
  s.physical = memory_physical;
  s.checks = memory_checks;
  s.profile_text = R"(# GPU memory (stage memory), % of the HBM/GDDR bandwidth (vendor spec, else 2 x clock x bus).
memory.hbm_copy_min_percent = 85
memory.hbm_read_min_percent = 85
memory.hbm_write_min_percent = 80
memory.hbm_triad_min_percent = 85
memory.d2d_memcpy_min_percent = 80
)";
  s.profile_keys = {
      {"memory.hbm_copy_min_percent", ProfileValueKind::percent, "HBM copy kernel, min % of memory bandwidth"},
      {"memory.hbm_read_min_percent", ProfileValueKind::percent, "HBM read kernel, min % of memory bandwidth"},
      {"memory.hbm_write_min_percent", ProfileValueKind::percent, "HBM write kernel, min % of memory bandwidth"},
      {"memory.hbm_triad_min_percent", ProfileValueKind::percent, "HBM triad kernel, min % of memory bandwidth"},
      {"memory.d2d_memcpy_min_percent", ProfileValueKind::percent, "cudaMemcpy device to device, min % of memory bandwidth"},
  };
  s.advice =
      "Check the GPU's memory clock, temperature and ECC counters under load (pipecheck stress); a GPU well "
      "below its identical peers is a candidate for replacement.";
  s.measurement_contract =
      "gpu, gpu_bdf, op (copy|read|write|triad|d2d_memcpy); unit GB/s. Ceiling: gpu_memory_ceiling(gpu).preferred().";
  return s;
}

}  // namespace pipecheck
