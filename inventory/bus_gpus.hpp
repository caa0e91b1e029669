// The NVIDIA GPUs on the PCI bus, as sysfs lists them whatever the driver says: a GPU the driver
// lost or never bound is still here, which is how `check` tells "on the bus, not seen by the
// driver" from "not in the machine".
#pragma once

#include <string>
#include <vector>

#include "core/sysfs.hpp"

namespace pipecheck {

// An NVIDIA GPU on the PCI bus.
struct BusGpu {
  std::string bus_id;
  std::string driver;  // the bound driver ("nvidia", "vfio-pci"), "" when none
};

// Functions with vendor 0x10de and class 0x0300 (VGA) or 0x0302 (3D controller) under
// /sys/bus/pci/devices, sorted by bus id, each with the name of its bound driver ("" when none).
// NVSwitches (class 0x0680) and the GPUs' audio functions are not GPUs.
std::vector<BusGpu> read_bus_gpus(const SysfsRoot& sys);

}  // namespace pipecheck
