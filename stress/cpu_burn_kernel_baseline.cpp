// The variant every CPU of the build's architecture runs, compiled with the build's default
// flags: on x86-64 SSE2 (no FMA there: a multiply then an add, -ffp-contract=off so the compiler
// never fuses them behind our back), on aarch64 NEON (FMA is part of the base ISA), elsewhere
// 16-byte vectors of whatever the compiler makes of them.
#if defined(__x86_64__)
#define PIPECHECK_BURN_FUSED 0
#define PIPECHECK_BURN_ACCUMULATORS 12
#define PIPECHECK_BURN_ISA "sse2"
#define PIPECHECK_BURN_DISPLAY "SSE2"
#elif defined(__aarch64__)
#define PIPECHECK_BURN_FUSED 1
#define PIPECHECK_BURN_ACCUMULATORS 24
#define PIPECHECK_BURN_ISA "neon"
#define PIPECHECK_BURN_DISPLAY "NEON"
#else
#define PIPECHECK_BURN_FUSED 0
#define PIPECHECK_BURN_ACCUMULATORS 8
#define PIPECHECK_BURN_ISA "generic"
#define PIPECHECK_BURN_DISPLAY "generic 128-bit"
#endif
#define PIPECHECK_BURN_BYTES 16
#include "stress/cpu_burn_kernel_body.hpp"
#include "stress/cpu_burn_kernel.hpp"

namespace pipecheck {

void burn_baseline_fp64(double* x, const double* a, const double* b, std::uint64_t iterations) {
  BurnBody<double>::run(x, a, b, iterations);
}
void burn_baseline_fp32(float* x, const float* a, const float* b, std::uint64_t iterations) {
  BurnBody<float>::run(x, a, b, iterations);
}
void burn_baseline_reference_fp64(double* x, const double* a, const double* b, std::uint64_t iterations) {
  BurnBody<double>::reference(x, a, b, iterations);
}
void burn_baseline_reference_fp32(float* x, const float* a, const float* b, std::uint64_t iterations) {
  BurnBody<float>::reference(x, a, b, iterations);
}

constinit const CpuBurnKernel cpu_burn_kernel_baseline{PIPECHECK_BURN_ISA, PIPECHECK_BURN_DISPLAY, 128, PIPECHECK_BURN_FUSED != 0,
                                    PIPECHECK_BURN_ACCUMULATORS, burn_baseline_fp64, burn_baseline_fp32,
                                    burn_baseline_reference_fp64, burn_baseline_reference_fp32};

}  // namespace pipecheck
