// The whole inventory in one call: host (CPU, memory, disks) from sysfs, GPUs from CUDA and
// NVML, the software stack. Never throws for a missing GPU, driver or file: notes say why.
#pragma once

#include "core/inventory.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

Inventory collect_inventory(const SysfsRoot& sys);

}  // namespace pipecheck
