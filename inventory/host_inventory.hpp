// The host side of the hardware inventory: CPU topology and caches, memory size and modules,
// read from /proc and /sys under a SysfsRoot (the live "/" or a recorded tree in tests).
#pragma once

#include "core/inventory.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

// Model from /proc/cpuinfo; sockets and physical cores from its "physical id"/"core id"
// (or /sys/devices/system/cpu/cpu*/topology where cpuinfo lacks them, as on Arm); NUMA
// nodes from /sys/devices/system/node; L3 of cpu0's socket from sysfs cache entries.
// Fields stay 0 / empty when the files are missing.
CpuInfo read_cpu_info(const SysfsRoot& sys);

// MemTotal from /proc/meminfo, the populated DIMMs from SMBIOS (empty unless root), and the
// populated memory channels from EDAC where its driver is loaded (else empty, never inferred).
MemoryInfo read_memory_info(const SysfsRoot& sys);

// Distinct (memory controller, channel) pairs holding a DIMM of non-zero size, from
// /sys/devices/system/edac/mc/mc*/dimm*/{size,dimm_location}; nullopt without EDAC.
std::optional<int> read_edac_populated_channels(const SysfsRoot& sys);

}  // namespace pipecheck
