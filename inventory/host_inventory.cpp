// CPU and memory facts of the host: hwloc first, sysfs and /proc where hwloc cannot read the
// tree. Missing files leave facts empty; nothing here throws for an absent path.
#include "inventory/host_inventory.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>
#include <utility>

#include "inventory/cpu_topology_sysfs.hpp"
#include "inventory/cpuinfo.hpp"
#include "inventory/smbios.hpp"

namespace pipecheck {

namespace {

// "MemTotal:       24684092 kB" -> bytes; nullopt when absent.
std::optional<std::uint64_t> read_mem_total(const SysfsRoot& sys) {
  const auto text = sys.read("/proc/meminfo");
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    std::istringstream in(line.substr(9));
    std::uint64_t kib = 0;
    if (in >> kib) return kib * 1024;
  }
  return std::nullopt;
}

// The nodes of hwloc when it read the tree, else of sysfs; GPU memory nodes named either way.
std::vector<NumaNode> numa_nodes(const SysfsRoot& sys, const HwlocTopology& hwloc) {
  std::vector<NumaNode> nodes = hwloc.linux_cpus ? hwloc.nodes : read_numa_nodes_sysfs(sys);
  for (NumaNode& node : nodes) {
    if (node.gpu_bdf.empty()) node.gpu_bdf = gpu_of_numa_node(sys, node.os_index);
    if (!node.gpu_bdf.empty()) node.cpus = 0;
  }
  return nodes;
}

// NUMA nodes with CPUs; one where the kernel has no node folder but CPUs are known.
std::optional<int> count_numa_nodes(const std::vector<NumaNode>& nodes, const std::optional<int>& logical) {
  int with_cpus = 0;
  for (const NumaNode& node : nodes) with_cpus += node.cpus > 0 ? 1 : 0;
  if (with_cpus > 0) return with_cpus;
  if (nodes.empty() && logical) return 1;
  return std::nullopt;
}

}  // namespace

CpuInfo read_cpu_info(const SysfsRoot& sys, const HwlocTopology& hwloc, std::vector<std::string>& notes) {
  const CpuinfoFacts cpuinfo = parse_cpuinfo(sys.read("/proc/cpuinfo").value_or(""));
  const SysfsCpuTopology sysfs = read_cpu_topology_sysfs(sys, cpuinfo);
  CpuInfo cpu;
  cpu.model = cpuinfo.model;
  if (hwloc.linux_cpus) {
    cpu.source = "hwloc " + hwloc.version;
    cpu.logical_cpus = hwloc.pus;
    cpu.physical_cores = hwloc.cores > 0 ? std::optional<int>(hwloc.cores) : sysfs.cores;
    // hwloc groups packages by their CPU masks, also where the kernel's package id is -1.
    cpu.sockets = hwloc.packages > 0 ? std::optional<int>(hwloc.packages) : sysfs.sockets;
    cpu.caches = hwloc.caches.empty() ? sysfs.caches : hwloc.caches;
    const auto l3 = hwloc.caches.empty() ? sysfs.l3_per_package : hwloc.l3_per_package;
    if (l3) cpu.l3_bytes = static_cast<int>(std::min<std::uint64_t>(*l3, INT32_MAX));
  } else {
    cpu.source = "sysfs";
    if (!hwloc.error.empty()) notes.push_back("CPU topology from sysfs and /proc/cpuinfo (" + hwloc.error + ")");
    cpu.logical_cpus = sysfs.logical;
    cpu.physical_cores = sysfs.cores;
    cpu.sockets = sysfs.sockets;
    if (!sysfs.sockets && !sysfs.sockets_unknown.empty()) notes.push_back("sockets unknown: " + sysfs.sockets_unknown);
    cpu.caches = sysfs.caches;
    if (sysfs.l3_per_package) cpu.l3_bytes = static_cast<int>(std::min<std::uint64_t>(*sysfs.l3_per_package, INT32_MAX));
  }
  cpu.numa_nodes = count_numa_nodes(numa_nodes(sys, hwloc), cpu.logical_cpus);
  if (cpu.model.empty()) notes.push_back("CPU model: /proc/cpuinfo names none");
  return cpu;
}

CpuInfo read_cpu_info(const SysfsRoot& sys) {
  std::vector<std::string> notes;
  return read_cpu_info(sys, load_hwloc_topology(sys), notes);
}

void set_host_memory(MemoryInfo& memory, std::optional<std::uint64_t> mem_total) {
  std::uint64_t with_cpus = 0, cpu_less = 0;
  bool cpu_nodes_known = true, any_cpu_node = false, any_cpu_less = false;
  for (const NumaNode& node : memory.nodes) {
    if (node.cpus > 0) {
      any_cpu_node = true;
      cpu_nodes_known = cpu_nodes_known && node.memory_bytes.has_value();
      with_cpus += node.memory_bytes.value_or(0);
    } else if (node.memory_bytes && *node.memory_bytes > 0) {
      any_cpu_less = true;
      cpu_less += *node.memory_bytes;
    }
  }
  memory.total_bytes.reset();
  memory.total_source.clear();
  if (!any_cpu_less) {
    if (mem_total) {
      memory.total_bytes = mem_total;
      memory.total_source = "/proc/meminfo MemTotal";
    } else if (any_cpu_node && cpu_nodes_known && with_cpus > 0) {
      memory.total_bytes = with_cpus;
      memory.total_source = "NUMA nodes' MemTotal";
    }
    return;
  }
  if (any_cpu_node && cpu_nodes_known && with_cpus > 0) {
    memory.total_bytes = with_cpus;
    memory.total_source = "NUMA nodes with CPUs (CPU-less nodes apart)";
  } else if (mem_total && *mem_total > cpu_less) {
    memory.total_bytes = *mem_total - cpu_less;
    memory.total_source = "/proc/meminfo MemTotal less the CPU-less NUMA nodes";
  }
}

namespace {

// "channel 1" inside an EDAC dimm_location ("csrow 0 channel 1", "branch 0 channel 2 slot 0").
std::optional<int> channel_of_location(const std::string& location) {
  const auto at = location.find("channel ");
  if (at == std::string::npos) return std::nullopt;
  try {
    return std::stoi(location.substr(at + 8));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<int> read_edac_populated_channels(const SysfsRoot& sys) {
  const std::string root = "/sys/devices/system/edac/mc";
  std::set<std::pair<std::string, int>> channels;
  for (const auto& mc : sys.list(root)) {
    if (mc.rfind("mc", 0) != 0) continue;
    for (const auto& entry : sys.list(root + "/" + mc)) {
      if (entry.rfind("dimm", 0) != 0 && entry.rfind("rank", 0) != 0) continue;
      const std::string dir = root + "/" + mc + "/" + entry;
      const auto size_mb = sys.read_int(dir + "/size");
      const auto location = sys.read_line(dir + "/dimm_location");
      if (!size_mb || *size_mb <= 0 || !location) continue;
      if (auto channel = channel_of_location(*location)) channels.insert({mc, *channel});
    }
  }
  if (channels.empty()) return std::nullopt;
  return static_cast<int>(channels.size());
}

MemoryInfo read_memory_info(const SysfsRoot& sys, const HwlocTopology& hwloc, std::vector<std::string>& notes) {
  MemoryInfo memory;
  memory.nodes = numa_nodes(sys, hwloc);
  const auto mem_total = read_mem_total(sys);
  set_host_memory(memory, mem_total);
  if (!memory.total_bytes) notes.push_back("memory size unknown: no /proc/meminfo and no NUMA node meminfo");
  for (const NumaNode& node : memory.nodes) {
    if (node.cpus > 0 || !node.memory_bytes || *node.memory_bytes == 0) continue;
    notes.push_back("NUMA node " + std::to_string(node.os_index) + " has memory but no CPUs" +
                    (node.gpu_bdf.empty() ? " (CXL, HBM or persistent memory)" : " (GPU " + node.gpu_bdf + "'s memory)") +
                    ": not counted as host memory");
  }
  const SmbiosMemory smbios = read_smbios_memory(sys);
  memory.dimms = smbios.dimms;
  if (memory.dimms.empty()) notes.push_back("memory modules: " + smbios.why_none);
  // The memory controllers' own view (EDAC) is the only source that names channels; SMBIOS
  // slot strings are vendor-specific, and the DIMM count says nothing about channels.
  memory.memory_channels = read_edac_populated_channels(sys);
  return memory;
}

MemoryInfo read_memory_info(const SysfsRoot& sys) {
  std::vector<std::string> notes;
  return read_memory_info(sys, load_hwloc_topology(sys), notes);
}

}  // namespace pipecheck
