// The whole inventory in one call: host (CPU, memory, disks) from sysfs, GPUs from CUDA and
// NVML, the software stack. Never throws for a missing GPU, driver or file: notes say why.
#pragma once

#include "core/inventory.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

struct InventoryOptions {
  // Ask the CUDA driver (cuInit: seconds on a node of many GPUs without persistence mode). Off,
  // GPU facts come from NVML and sysfs alone (`check --fast`).
  bool cuda = true;
};

Inventory collect_inventory(const SysfsRoot& sys, const InventoryOptions& options = {});

}  // namespace pipecheck
