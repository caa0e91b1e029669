// What a CPU kernel's arithmetic is, as far as its ceiling cares: the precision, the width of its
// vector operations and whether its multiply-adds are fused. The CPU burn (stress/) describes its
// kernels with it and the CPU ceiling (ceilings/cpu_ceiling) reads it, neither including the other.
#pragma once

namespace pipecheck {

enum class CpuPrecision { fp64, fp32 };

struct CpuVectorOps {
  const char* display = "";  // "AVX-512", "AVX2+FMA", "SSE2", ...
  int vector_bits = 0;       // width of one vector operation
  bool fused = false;        // one rounding per multiply-add (FMA), else a multiply then an add
};

}  // namespace pipecheck
