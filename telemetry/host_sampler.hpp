// Host telemetry for the stress run: CPU utilization from /proc/stat, CPU temperatures from
// hwmon and thermal zones, package power from powercap (RAPL) energy counters. Reads under a
// SysfsRoot so tests point it at a recorded tree.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/sysfs.hpp"

namespace pipecheck {

struct HostReading {
  std::optional<double> cpu_util_pct;   // all CPUs, since the previous sample
  std::optional<double> cpu_temp_c;     // hottest CPU sensor
  std::optional<double> cpu_package_w;  // sum over packages, since the previous sample
};

// Busy and total jiffies of the aggregate "cpu" line of /proc/stat. Busy excludes idle and
// iowait; guest time is already inside user time and is not added twice.
struct CpuTimes {
  std::uint64_t busy = 0;
  std::uint64_t total = 0;
};
std::optional<CpuTimes> parse_proc_stat(const std::string& text);

class HostSampler {
 public:
  using Clock = std::chrono::steady_clock;

  // Finds the sensors once (CPU hwmon chips, CPU thermal zones, RAPL packages).
  explicit HostSampler(SysfsRoot root);

  // Rates (utilization, watts) need two samples: the first reading has temperatures only.
  HostReading sample(Clock::time_point now);
  // Where each figure comes from, or why it is missing, for the summary's notes.
  const std::vector<std::string>& sources() const { return sources_; }

 private:
  struct RaplZone {
    std::string energy_path;  // .../energy_uj
    std::uint64_t max_range_uj = 0;
    std::optional<std::uint64_t> last_uj;
  };

  void find_temperature_sensors();
  void find_rapl_zones();
  std::optional<double> read_temperature() const;
  std::optional<double> read_package_watts(double seconds);

  SysfsRoot root_;
  std::vector<std::string> temperature_paths_;  // millidegrees Celsius
  std::vector<RaplZone> rapl_zones_;
  std::optional<CpuTimes> last_cpu_;
  std::optional<Clock::time_point> last_time_;
  std::vector<std::string> sources_;
};

}  // namespace pipecheck
