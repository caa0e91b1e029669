// The CPUs this process may use, beside those the machine has: the affinity mask (which already
// holds a cpuset) and the cgroup's CPU quota (cgroup v2 cpu.max, v1 cpu.cfs_quota_us), which
// sched_getaffinity does not show. A container limited to 8 of 128 cores must run 8 threads.
#pragma once

#include <optional>
#include <string>

#include "core/sysfs.hpp"

namespace pipecheck {

struct CpuAllowance {
  int online = 0;                   // logical CPUs online on the machine (0: unknown)
  int affinity = 0;                 // CPUs in this process's affinity mask (0: unknown)
  std::optional<double> quota_cpus;  // the tightest cgroup quota up the tree, in CPUs
  std::string quota_source;         // "/sys/fs/cgroup/job/cpu.max = 200000 100000"

  // The CPUs worth one thread each: affinity, capped by the quota rounded up; at least 1.
  int usable() const;
  // Fewer usable CPUs than the machine has online.
  bool limited() const;
  // "2 of 2 CPUs" or "4 of 128 CPUs: affinity 8, cgroup quota 3.5 CPUs (/sys/fs/cgroup/...)".
  std::string describe() const;
};

// Reads /sys/devices/system/cpu/online, /proc/self/cgroup and /proc/self/mountinfo under root;
// affinity_count comes from the caller (sched_getaffinity on a live machine, a recorded value
// in tests). A CPU count from a recorded tree never mixes with the live host's.
CpuAllowance read_cpu_allowance(const SysfsRoot& root, int affinity_count);

// This process on this machine.
CpuAllowance live_cpu_allowance();
// The default thread count of the probes: live_cpu_allowance().usable().
int usable_cpu_count();

// "0-3,8,10-11" -> 7; nullopt when the text is not a CPU list.
std::optional<int> count_cpu_list(const std::string& text);

}  // namespace pipecheck
