// The CPU topology from sysfs and /proc/cpuinfo alone, for trees hwloc cannot read (no topology
// masks recorded) and to fill what hwloc leaves out. Every kernel generation's files are read:
// the lists (*_list, 2.6.x onwards) and the masks without lists of older kernels.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "core/sysfs.hpp"
#include "inventory/cpuinfo.hpp"

namespace pipecheck {

struct SysfsCpuTopology {
  std::optional<int> sockets;     // empty where the kernel says package -1 or gives no ids
  std::optional<int> cores;
  std::optional<int> logical;
  std::vector<CacheLevel> caches;
  std::optional<std::uint64_t> l3_per_package;
  std::string sockets_unknown;    // why sockets is empty
};

// Sockets: distinct physical_package_id (never from -1), else cpuinfo "physical id".
// Cores: distinct thread-sibling sets (a set whose threads carry different core ids, as on AMD
// compute units, counts each), else the most of: distinct (drawer, book, package, die, core id),
// cpuinfo (physical id, core id) pairs, and the sum of cpuinfo "cpu cores" per package, since
// core ids repeat inside a package on multi-die parts. Logical CPUs: the online list, else the
// CPUs with topology, else cpuinfo's count. Caches: one instance per distinct set of CPUs
// sharing it (shared_cpu_list, else the shared_cpu_map mask, else the cache id).
SysfsCpuTopology read_cpu_topology_sysfs(const SysfsRoot& sys, const CpuinfoFacts& cpuinfo);

// The NUMA nodes of /sys/devices/system/node: CPUs from cpulist (or the cpumap mask), memory from
// node<N>/meminfo, and GPU memory nodes named by /proc/driver/nvidia/gpus/<bus id>/numa_status.
// Empty when the kernel has no node folder.
std::vector<NumaNode> read_numa_nodes_sysfs(const SysfsRoot& sys);

// The bus id of the GPU whose memory is NUMA node `os_index`, from the NVIDIA driver's
// /proc/driver/nvidia/gpus/<bus id>/numa_status ("Node: 1"); "" when none says so.
std::string gpu_of_numa_node(const SysfsRoot& sys, int os_index);

}  // namespace pipecheck
