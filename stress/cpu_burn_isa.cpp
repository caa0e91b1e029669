// Choosing the CPU burn variant by CPUID (see cpu_burn_isa.hpp).
#include "stress/cpu_burn_isa.hpp"

namespace pipecheck {

std::vector<const CpuBurnKernel*> built_cpu_burn_kernels() {
#if defined(__x86_64__)
  return {&cpu_burn_kernel_avx512, &cpu_burn_kernel_avx2, &cpu_burn_kernel_baseline};
#else
  return {&cpu_burn_kernel_baseline};
#endif
}

bool cpu_runs(const CpuBurnKernel& kernel) {
#if defined(__x86_64__)
  // libgcc's CPU model also checks XCR0, so a kernel that does not save the zmm/ymm state
  // reads as "not supported".
  __builtin_cpu_init();
  if (&kernel == &cpu_burn_kernel_avx512) return __builtin_cpu_supports("avx512f");
  if (&kernel == &cpu_burn_kernel_avx2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return &kernel == &cpu_burn_kernel_baseline;
}

const CpuBurnKernel& widest_cpu_burn_kernel() {
  for (const CpuBurnKernel* kernel : built_cpu_burn_kernels()) {
    if (cpu_runs(*kernel)) return *kernel;
  }
  return cpu_burn_kernel_baseline;
}

const CpuBurnKernel* find_cpu_burn_kernel(const std::string& isa) {
  for (const CpuBurnKernel* kernel : built_cpu_burn_kernels()) {
    if (isa == kernel->isa) return kernel;
  }
  return nullptr;
}

std::string cpu_burn_isa_names() {
  std::string names;
  for (const CpuBurnKernel* kernel : built_cpu_burn_kernels()) {
    names += (names.empty() ? "" : ", ") + std::string(kernel->isa);
  }
  return names;
}

const char* to_string(CpuPrecision precision) { return precision == CpuPrecision::fp64 ? "fp64" : "fp32"; }

bool parse_cpu_precision(const std::string& text, CpuPrecision* precision) {
  if (text == "fp64") {
    *precision = CpuPrecision::fp64;
  } else if (text == "fp32") {
    *precision = CpuPrecision::fp32;
  } else {
    return false;
  }
  return true;
}

}  // namespace pipecheck
