// Wiring the ceilings model into the stress run (see stress_ceilings.hpp).
#include "app/stress_ceilings.hpp"

#include <algorithm>

#include "ceilings/ceilings.hpp"
#include "ceilings/cpu_ceiling.hpp"

namespace pipecheck {

CpuBurnCeilings cpu_burn_ceilings(const CpuBurnPlan& plan, const SysfsRoot& root) {
  CpuBurnCeilings ceilings;
  const CpuCeilingFacts facts = read_cpu_ceiling_facts(root, plan.cpus);
  ceilings.ceiling = cpu_burn_ceiling(facts, *plan.kernel, plan.precision, plan.threads);
  // Every CPU the burn may use, however many threads share them.
  const auto cpus = static_cast<unsigned>(std::max<std::size_t>(plan.cpus.size(), 1));
  ceilings.sanity_bound = cpu_sanity_bound(std::min(std::max(plan.threads, 1u), cpus), plan.precision);
  return ceilings;
}

CeilingResult gpu_burn_ceiling(const StressGpu& gpu, BurnDtype dtype) {
  if (!gpu.facts) return CeilingResult::unknown("unknown: CUDA reported nothing about " + gpu.name);
  GpuInfo info;
  info.cuda_index = gpu.index;
  info.name = gpu.facts->name;
  info.pci_bdf = gpu.bus_id;
  info.cc_major = gpu.facts->cc_major;
  info.cc_minor = gpu.facts->cc_minor;
  info.sm_count = gpu.facts->sm_count;
  if (gpu.facts->max_sm_clock_khz) info.max_sm_clock_mhz = *gpu.facts->max_sm_clock_khz / 1000;
  const auto parsed = parse_dtype(burn_dtype_name(dtype));
  if (!parsed) return CeilingResult::unknown("unknown: no ceiling for dtype " + burn_dtype_name(dtype));
  const ComputeCeilings ceilings = gpu_compute_ceiling(info, *parsed);
  const auto& theoretical = ceilings.theoretical.ceiling;
  const auto& vendor = ceilings.vendor.ceiling;
  if (theoretical && vendor) return vendor->value > theoretical->value ? ceilings.vendor : ceilings.theoretical;
  if (theoretical) return ceilings.theoretical;
  if (vendor) return ceilings.vendor;
  return ceilings.theoretical;
}

StressHooks with_burn_ceilings(StressHooks hooks, const SysfsRoot& root) {
  hooks.cpu_ceiling = [root](const CpuBurnPlan& plan) { return cpu_burn_ceilings(plan, root); };
  hooks.gpu_ceiling = gpu_burn_ceiling;
  return hooks;
}

}  // namespace pipecheck
