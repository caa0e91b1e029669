// The machine's topology through hwloc (Debian's libhwloc, 2.9 on Debian 12): packages, cores,
// PUs, caches per level and package, NUMA nodes with their memory, and the PCI tree of the
// GPUs, NICs and storage functions. Works on the live machine and on a recorded /sys and /proc
// tree (hwloc's HWLOC_FSROOT), where nothing of the live host may leak in: hwloc's x86 backend
// (which asks this CPU through CPUID), its no-OS fallback (this host's processor count) and its
// I/O plugins (this host's PCI bus through libpciaccess, OpenCL, GL) are kept out, and its uname
// facts are never read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

struct HwlocTopology {
  bool loaded = false;           // hwloc_topology_load succeeded
  // hwloc's Linux backend read the CPU topology from sysfs. Without it hwloc's CPU counts are a
  // guess (one package, one PU per online CPU), so the callers fall back on their own sysfs code.
  bool linux_cpus = false;
  std::string version;           // "2.9.0", the library that ran
  std::string error;             // why not loaded, or why the CPU topology is missing
  int packages = 0;
  int cores = 0;
  int pus = 0;                   // every online PU, also those this process may not use
  std::vector<CacheLevel> caches;
  std::optional<std::uint64_t> l3_per_package;  // the first package's L3 instances together
  std::vector<NumaNode> nodes;   // cpus from the node's sysfs cpumap (hwloc widens a CPU-less
                                 // node's cpuset to its locality)
  std::vector<PciDevice> pci;    // GPUs, NICs, storage; no 32-bit domains (see pci_devices.hpp)
};

// Loads the topology of the machine under `sys` ("/" is this machine). Never throws: a failed
// load leaves loaded=false and says why.
HwlocTopology load_hwloc_topology(const SysfsRoot& sys);

// What kind of device a PCI class is for the inventory: "gpu" (display, 3D), "nic" (network,
// InfiniBand), "nvme", or storage (other mass storage); "" for the rest.
std::string pci_kind_of_class(unsigned class_code);

}  // namespace pipecheck
