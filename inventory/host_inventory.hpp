// The host side of the hardware inventory: CPU topology and caches, NUMA nodes and memory, read
// through hwloc where it can read the tree and from /proc and /sys otherwise, under a SysfsRoot
// (the live "/" or a recorded tree).
#pragma once

#include "core/inventory.hpp"
#include "core/sysfs.hpp"
#include "inventory/hwloc_topology.hpp"

namespace pipecheck {

// Model from /proc/cpuinfo (every architecture's spelling); packages, cores, PUs, NUMA nodes and
// caches from hwloc when its Linux backend read the CPU topology, else from sysfs and cpuinfo
// (see cpu_topology_sysfs.hpp). Counts nobody can give stay empty. `notes` says which source
// was used when hwloc could not read the tree, and why sockets are unknown.
CpuInfo read_cpu_info(const SysfsRoot& sys, const HwlocTopology& hwloc, std::vector<std::string>& notes);
// The same with hwloc loaded for this call.
CpuInfo read_cpu_info(const SysfsRoot& sys);

// NUMA nodes with their memory (hwloc, else sysfs), host memory (the nodes with CPUs; CPU-less
// nodes such as GPU memory never count), the populated DIMMs from SMBIOS, and the populated
// memory channels from EDAC where its driver is loaded (else empty, never inferred).
MemoryInfo read_memory_info(const SysfsRoot& sys, const HwlocTopology& hwloc, std::vector<std::string>& notes);
MemoryInfo read_memory_info(const SysfsRoot& sys);

// Host memory from the nodes and /proc/meminfo's MemTotal: MemTotal when every node has CPUs;
// with CPU-less nodes, the sum over the nodes with CPUs (else MemTotal less the CPU-less nodes'
// memory). Empty with neither.
void set_host_memory(MemoryInfo& memory, std::optional<std::uint64_t> mem_total);

// Distinct (memory controller, channel) pairs holding a DIMM of non-zero size, from
// /sys/devices/system/edac/mc/mc*/dimm*/{size,dimm_location}; nullopt without EDAC.
std::optional<int> read_edac_populated_channels(const SysfsRoot& sys);

}  // namespace pipecheck
