// The GPUs, NICs and storage functions on the PCI bus, with their place in the PCI tree and the
// CPUs and memory near them: hwloc's tree, and our own walk of /sys/bus/pci/devices for what
// hwloc does not give. Debian's hwloc 2.9 drops functions on PCI domains wider than 16 bits (NVMe
// behind Intel VMD sits on domain 10000), and hwloc keeps neither the bound driver nor the full
// class code; on a recorded tree without config space it sees no bridges.
#pragma once

#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "core/sysfs.hpp"
#include "inventory/hwloc_topology.hpp"

namespace pipecheck {

// One function as sysfs describes it (class, ids, driver, NUMA node, local CPUs, link, bridges
// above); kind "" when its class is none the inventory lists.
PciDevice read_pci_device_sysfs(const SysfsRoot& sys, const std::string& bdf);

// Every GPU, NIC and storage function, sorted by bus id: the sysfs walk, with hwloc's bridges
// (where it saw at least as many as the sysfs path holds), link bandwidth and locality.
std::vector<PciDevice> read_pci_devices(const SysfsRoot& sys, const HwlocTopology& hwloc);

// The NVIDIA GPUs among them (vendor 0x10de, display or 3D class), as GPU records seen on the
// bus only: bus id, device id, bound driver, NUMA node, PCIe link (narrowest hop up).
std::vector<GpuInfo> nvidia_gpus_on_bus(const SysfsRoot& sys, const std::vector<PciDevice>& pci);

}  // namespace pipecheck
