// The CPU ceiling: FLOP per cycle of one core for the ISA and precision the burn runs (from the
// FMA units its microarchitecture family has), x the cores the burn uses, x their highest clock
// (cpufreq). Unknown, with the reason, where the family or the clock is not known; then the
// stress run holds the burn against an absolute sanity bound instead.
#pragma once

#include <optional>
#include <string>

#include "core/measurement.hpp"
#include "ceilings/cpu_ceiling_facts.hpp"
#include "core/cpu_vector_ops.hpp"

namespace pipecheck {

// The vector units of one microarchitecture family, as its vendor's optimisation guide gives them.
struct CpuFmaFamily {
  const char* name = "";    // "AMD Zen 2 to Zen 4"
  int fma_units = 0;        // vector FMA pipes a core (0: no FMA)
  int native_bits = 0;      // width of each pipe; wider ops run in pieces
  int mul_add_pipes = 0;    // pipes that take a separate multiply or add (code without FMA)
  const char* assumption = "";  // what the figures rest on, and where they may overstate
};

// The family of the CPU, or nullptr with *why.
const CpuFmaFamily* find_cpu_fma_family(const CpuCeilingFacts& facts, std::string* why);

// FLOP per cycle of one core running vectors of `vector_bits` of `precision`, fused (FMA: 2
// FLOP an element) or not (a multiply and an add on separate pipes: 1 FLOP an element each):
// fused: fma_units x min(vector_bits, native_bits) / element bits x 2.
std::optional<int> cpu_flop_per_cycle(const CpuFmaFamily& family, int vector_bits, bool fused,
                                      CpuPrecision precision);

// The ceiling of a burn of `threads` threads of `kernel` (a CPU burn kernel converts to its
// CpuVectorOps) at `precision` on these CPUs, in
// GFLOP/s: min(threads, physical cores) x max clock x FLOP/cycle, with its derivation; or
// unknown with the reason (and the FLOP/cycle where that much is known).
CeilingResult cpu_burn_ceiling(const CpuCeilingFacts& facts, const CpuVectorOps& kernel, CpuPrecision precision,
                               unsigned threads);

// The bound no CPU passes, for when the ceiling is unknown: cores x 6 GHz x 32 FP64 FLOP/cycle
// (twice that in FP32), in GFLOP/s.
inline constexpr double kSanityClockGhz = 6.0;
inline constexpr int kSanityFp64FlopPerCycle = 32;
Ceiling cpu_sanity_bound(unsigned cores, CpuPrecision precision);

}  // namespace pipecheck
