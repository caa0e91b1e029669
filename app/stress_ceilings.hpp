// The ceilings `pipecheck stress` holds its burn rates against, from the judging side: the CPU
// ceiling (ceilings/cpu_ceiling) with the sanity bound for when it is unknown, and each GPU's
// dense GEMM peak for the burn's dtype (ceilings/ceilings).
#pragma once

#include "core/sysfs.hpp"
#include "stress/stress_run.hpp"

namespace pipecheck {

// CPU facts read under `root` (--sysfs-root in tests, "/" otherwise).
CpuBurnCeilings cpu_burn_ceilings(const CpuBurnPlan& plan, const SysfsRoot& root);
// The higher of the GPU's theoretical peak (SMs x max SM clock x FLOP/clk/SM) and its vendor
// spec figure: a physical ceiling must not be below what the hardware can do (the vendor's
// tensor figure is quoted at a lower clock than the GPU reaches).
CeilingResult gpu_burn_ceiling(const StressGpu& gpu, BurnDtype dtype);
// `hooks` with both ceilings set.
StressHooks with_burn_ceilings(StressHooks hooks, const SysfsRoot& root);

}  // namespace pipecheck
