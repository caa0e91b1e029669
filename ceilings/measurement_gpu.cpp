// The GPU a measurement ran on (see measurement_gpu.hpp).
#include "ceilings/measurement_gpu.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "core/figure_text.hpp"

namespace pipecheck {

namespace {

std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

}  // namespace

// "0000:17:00.0" and "17:00.0" name the same function; NVML writes 8-digit domains, sysfs 4.
std::string normal_bdf(std::string bdf) {
  for (auto& c : bdf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colons = std::count(bdf.begin(), bdf.end(), ':');
  if (colons == 2) bdf = bdf.substr(bdf.find(':') + 1);
  return bdf;
}

const GpuInfo* find_gpu(const Measurement& m, const Inventory& inventory) {
  const std::string bdf = param(m, "gpu_bdf");
  if (!bdf.empty()) {
    for (const auto& gpu : inventory.gpus) {
      if (!gpu.pci_bdf.empty() && normal_bdf(gpu.pci_bdf) == normal_bdf(bdf)) return &gpu;
    }
  }
  const std::string index = param(m, "gpu");
  if (!index.empty() && index.find_first_not_of("0123456789") == std::string::npos) {
    for (const auto& gpu : inventory.gpus) {
      if (gpu.cuda_index == std::atoi(index.c_str())) return &gpu;
    }
  }
  return nullptr;
}

CeilingResult no_gpu(const Measurement& m) {
  const std::string bdf = param(m, "gpu_bdf"), index = param(m, "gpu");
  if (bdf.empty() && index.empty()) return CeilingResult::unknown("unknown: the measurement names no GPU");
  return CeilingResult::unknown("unknown: GPU " + (bdf.empty() ? "cuda:" + index : bdf) +
                                " is not in the inventory");
}

}  // namespace pipecheck
