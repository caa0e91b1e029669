// Host CPU use for the watch: per-core utilization and iowait from the per-CPU lines of
// /proc/stat (the aggregate "cpu" line alone, as the stress sampler reads it, cannot show one
// core pinned at 100% while the others idle).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/sysfs.hpp"
#include "watch/watch_sample.hpp"

namespace pipecheck {

// Jiffies of one "cpu" or "cpuN" line. busy excludes idle and iowait; guest time is already
// inside user time and is not added twice.
struct CoreTimes {
  std::uint64_t busy = 0;
  std::uint64_t iowait = 0;
  std::uint64_t total = 0;
};

struct CpuTimesByCore {
  CoreTimes all;
  std::vector<CoreTimes> cores;  // cpu0, cpu1, ... in file order (offline CPUs are absent)
};
std::optional<CpuTimesByCore> parse_proc_stat_cores(std::string_view text);

// Percentages between two readings; the first sample only primes.
class CpuStatsSampler {
 public:
  explicit CpuStatsSampler(SysfsRoot root);
  HostWatch sample();

 private:
  SysfsRoot root_;
  std::optional<CpuTimesByCore> last_;
};

}  // namespace pipecheck
