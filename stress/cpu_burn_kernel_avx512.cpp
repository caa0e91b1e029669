// The AVX-512 variant of the CPU burn: 16 chains of 512-bit FMAs (Skylake-SP and later Xeons,
// AMD Zen 4 and 5). Compiled with -mavx512f -mfma (cmake/PipecheckCpuBurn.cmake); called only
// after CPUID says the CPU and the OS support AVX-512 (cpu_burn_isa.cpp).
#define PIPECHECK_BURN_BYTES 64
#define PIPECHECK_BURN_ACCUMULATORS 16
#define PIPECHECK_BURN_FUSED 1
#include "stress/cpu_burn_kernel_body.hpp"
#include "stress/cpu_burn_kernel.hpp"

namespace pipecheck {

void burn_avx512_fp64(double* x, const double* a, const double* b, std::uint64_t iterations) {
  BurnBody<double>::run(x, a, b, iterations);
}
void burn_avx512_fp32(float* x, const float* a, const float* b, std::uint64_t iterations) {
  BurnBody<float>::run(x, a, b, iterations);
}
void burn_avx512_reference_fp64(double* x, const double* a, const double* b, std::uint64_t iterations) {
  BurnBody<double>::reference(x, a, b, iterations);
}
void burn_avx512_reference_fp32(float* x, const float* a, const float* b, std::uint64_t iterations) {
  BurnBody<float>::reference(x, a, b, iterations);
}

constinit const CpuBurnKernel cpu_burn_kernel_avx512{"avx512", "AVX-512", 512, true, PIPECHECK_BURN_ACCUMULATORS,
                                    burn_avx512_fp64, burn_avx512_fp32, burn_avx512_reference_fp64,
                                    burn_avx512_reference_fp32};

}  // namespace pipecheck
