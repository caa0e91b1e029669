// Which CPU burn variant runs: the widest this build holds and this CPU (and its OS) supports,
// asked of CPUID at run time, or the one --cpu-isa names.
#pragma once

#include <string>
#include <vector>

#include "stress/cpu_burn_kernel.hpp"

namespace pipecheck {

// The variants this build holds, widest first.
std::vector<const CpuBurnKernel*> built_cpu_burn_kernels();
// Whether this CPU runs a variant (CPUID, and XGETBV for the OS saving the wide registers).
bool cpu_runs(const CpuBurnKernel& kernel);
// The widest variant this CPU runs (the baseline always runs).
const CpuBurnKernel& widest_cpu_burn_kernel();
// A built variant by its --cpu-isa name, or nullptr.
const CpuBurnKernel* find_cpu_burn_kernel(const std::string& isa);
// "avx512, avx2, sse2": the names this build knows, for flags' help and errors.
std::string cpu_burn_isa_names();

const char* to_string(CpuPrecision precision);
// "fp64" / "fp32".
bool parse_cpu_precision(const std::string& text, CpuPrecision* precision);

}  // namespace pipecheck
