// The AVX2+FMA variant of the CPU burn: 12 chains of 256-bit FMAs (Intel Haswell and later, AMD
// Zen 1 to 3; 12 of the 16 ymm registers, where 2 FMA units x 5 cycles of latency need 10).
// Compiled with -mavx2 -mfma (cmake/PipecheckCpuBurn.cmake); called only after CPUID says the
// CPU and the OS support AVX2 and FMA (cpu_burn_isa.cpp).
#define PIPECHECK_BURN_BYTES 32
#define PIPECHECK_BURN_ACCUMULATORS 12
#define PIPECHECK_BURN_FUSED 1
#include "stress/cpu_burn_kernel_body.hpp"
#include "stress/cpu_burn_kernel.hpp"

namespace pipecheck {

void burn_avx2_fp64(double* x, const double* a, const double* b, std::uint64_t iterations) {
  BurnBody<double>::run(x, a, b, iterations);
}
void burn_avx2_fp32(float* x, const float* a, const float* b, std::uint64_t iterations) {
  BurnBody<float>::run(x, a, b, iterations);
}
void burn_avx2_reference_fp64(double* x, const double* a, const double* b, std::uint64_t iterations) {
  BurnBody<double>::reference(x, a, b, iterations);
}
void burn_avx2_reference_fp32(float* x, const float* a, const float* b, std::uint64_t iterations) {
  BurnBody<float>::reference(x, a, b, iterations);
}

constinit const CpuBurnKernel cpu_burn_kernel_avx2{"avx2", "AVX2+FMA", 256, true, PIPECHECK_BURN_ACCUMULATORS,
                                    burn_avx2_fp64, burn_avx2_fp32, burn_avx2_reference_fp64,
                                    burn_avx2_reference_fp32};

}  // namespace pipecheck
