// The whole inventory in one call: host topology through hwloc (sysfs where hwloc cannot read
// it), what this process may use of the CPUs, memory, disks, the PCI tree, GPUs from CUDA, NVML
// and the PCI bus, the software stack, network ports and GPU/NIC topology. On a recorded tree
// (`--sysfs-root`) nothing of the live host is read. Never throws for a missing GPU, driver or
// file: notes say why.
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
