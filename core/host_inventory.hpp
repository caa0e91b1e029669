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

// MemTotal from /proc/meminfo and the populated DIMMs from SMBIOS (empty unless root).
// memory_channels stays empty: SMBIOS does not tell channels reliably.
MemoryInfo read_memory_info(const SysfsRoot& sys);

}  // namespace pipecheck
