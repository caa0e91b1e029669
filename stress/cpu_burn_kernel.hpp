// The CPU burn's arithmetic, one variant per instruction set: every lane runs the recurrence
// x <- x * a + b (a multiply-add, fused where the ISA has FMA) from inputs the caller draws per
// thread and chunk. Each variant is its own translation unit compiled for its ISA
// (cpu_burn_kernel_avx512.cpp, _avx2.cpp, _baseline.cpp, flags in cmake/PipecheckCpuBurn.cmake);
// the binary stays portable and cpu_burn_isa.cpp picks the widest one the CPU runs (CPUID).
// Each variant also carries its scalar reference: the same recurrence lane by lane, with
// scalar instructions, to check the vector results bit for bit.
#pragma once

#include <cstdint>

#include "core/cpu_vector_ops.hpp"

namespace pipecheck {

struct CpuBurnKernel {
  const char* isa = "";        // "avx512", "avx2", "sse2", "neon", "generic": the --cpu-isa name
  const char* display = "";    // "AVX-512", "AVX2+FMA", "SSE2", ...
  int vector_bits = 0;         // width of one vector operation
  bool fused = false;          // one rounding per multiply-add (FMA), else a multiply then an add
  int accumulators = 0;        // independent vectors a step, enough to cover the FMA latency
  // x: lanes(precision) values, updated in place; a, b: one value per lane of one vector.
  void (*run_fp64)(double* x, const double* a, const double* b, std::uint64_t iterations) = nullptr;
  void (*run_fp32)(float* x, const float* a, const float* b, std::uint64_t iterations) = nullptr;
  void (*reference_fp64)(double* x, const double* a, const double* b, std::uint64_t iterations) = nullptr;
  void (*reference_fp32)(float* x, const float* a, const float* b, std::uint64_t iterations) = nullptr;

  // Elements of one vector, and the values one call updates (a chunk's result).
  int width(CpuPrecision precision) const {
    return vector_bits / (precision == CpuPrecision::fp64 ? 64 : 32);
  }
  int lanes(CpuPrecision precision) const { return width(precision) * accumulators; }
  // What its ceiling is computed from (ceilings/cpu_ceiling).
  operator CpuVectorOps() const { return {display, vector_bits, fused}; }
};


// One variant each (defined only where the build compiles it). Constant data, no code: reading
// them is safe on any CPU, only their functions need the ISA.
extern const CpuBurnKernel cpu_burn_kernel_avx512;
extern const CpuBurnKernel cpu_burn_kernel_avx2;
extern const CpuBurnKernel cpu_burn_kernel_baseline;

}  // namespace pipecheck
