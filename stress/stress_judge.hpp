// The stress run's rules and verdict, each rule a pure function tested alone: the slow-GPU rule,
// "busy but not loaded", throttling, wrong results, injected faults that must be caught, and a
// burn rate above its physical ceiling.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "stress/stress_rules.hpp"
#include "stress/stress_summary.hpp"

namespace pipecheck {

// Which GPUs are slower than the median by more than tolerance_pct: indices into `tflops`.
// Needs two GPUs or more (one GPU has nothing to compare with); *median gets the median.
std::vector<std::size_t> slow_gpus(const std::vector<double>& tflops, double tolerance_pct,
                                   double* median = nullptr);
// A rate counts as above its physical ceiling beyond 105% of it, as the report's judge has it:
// the 5% absorbs the timing of the samples, not a faster machine.
inline constexpr double kCeilingMargin = 1.05;
// "measured 78880.2 GFLOP/s, above the physical ceiling 384 GFLOP/s: the probe measured something
// else, or the ceiling is wrong" when `measured` is beyond kCeilingMargin x the ceiling.
std::optional<std::string> above_ceiling(double measured, const Ceiling& ceiling);

// Applies the rules and sets each verdict, the overall verdict and the exit code.
//   invalid      a burn rate above its ceiling (the CPU's sanity bound when its ceiling is
//                unknown), or fewer wrong results than faults injected (the checker is broken)
//   fail         wrong results, memory errors, a hang, a worker fault, an Xid, thermal or
//                hardware slowdown, uncorrected ECC errors, a slow GPU
//   interrupted  stopped by SIGINT/SIGTERM with nothing worse found: never a pass
//   pass         none of these; warnings (busy but not loaded, unstable clocks, corrected ECC
//                errors, PCIe replays) do not change it
// Exit code: 130 when interrupted (whatever was found, as combine() orders them), else 1 for
// invalid or fail, else 0.
void judge_stress(StressSummary& summary);

}  // namespace pipecheck
