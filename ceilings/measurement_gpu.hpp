// The GPU a measurement ran on, from its params: gpu_bdf (PCI bus id, domain optional) first
// (STYLE 12), else gpu (CUDA index). The ceilings, the judge and the renderers join on it.
#pragma once

#include <string>

#include "core/inventory.hpp"
#include "core/measurement.hpp"

namespace pipecheck {

// "0000:17:00.0" and "17:00.0" name the same function; NVML writes 8-digit domains, sysfs 4.
std::string normal_bdf(std::string bdf);
// nullptr when the measurement names none or the inventory lacks it.
const GpuInfo* find_gpu(const Measurement& measurement, const Inventory& inventory);
// The unknown ceiling of a measurement whose GPU find_gpu did not find, with the reason.
CeilingResult no_gpu(const Measurement& measurement);

}  // namespace pipecheck
