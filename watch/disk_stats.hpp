// Block-device activity from /proc/diskstats, as `iostat -x` computes it: read and write
// throughput and IOPS, %util (the share of time with any I/O in flight), r_await and aqu-sz.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/sysfs.hpp"
#include "watch/watch_sample.hpp"

namespace pipecheck {

// The cumulative counters of one /proc/diskstats line (fields 4-14; sectors are 512 bytes
// whatever the device's block size).
struct DiskCounters {
  int major = 0;
  int minor = 0;
  std::string name;
  std::uint64_t reads = 0;
  std::uint64_t read_sectors = 0;
  std::uint64_t read_ms = 0;
  std::uint64_t writes = 0;
  std::uint64_t write_sectors = 0;
  std::uint64_t io_ms = 0;        // time with at least one request in flight
  std::uint64_t weighted_ms = 0;  // time in queue summed over requests
};
// Every line, by device name.
std::map<std::string, DiskCounters> parse_diskstats(std::string_view text);

// The rates between two readings of one device over dt_s seconds.
DiskWatch disk_rates(const DiskCounters& before, const DiskCounters& after, double dt_s);

// Whether a diskstats entry is a device of its own worth showing: not loop, ram, zram, and not
// a partition (its disk is shown instead).
bool is_whole_disk(const SysfsRoot& root, const std::string& name);

class DiskStatsSampler {
 public:
  using Clock = std::chrono::steady_clock;
  explicit DiskStatsSampler(SysfsRoot root);

  // Rates for the given devices (marked job = true); with none given, every whole disk that
  // moved data in the interval (job = false): the fallback when the job's disks are unknown.
  std::vector<DiskWatch> sample(Clock::time_point now, const std::vector<std::string>& job_devices);

 private:
  SysfsRoot root_;
  std::map<std::string, DiskCounters> last_;
  std::optional<Clock::time_point> last_time_;
  std::map<std::string, bool> whole_disk_;  // cache of is_whole_disk
};

}  // namespace pipecheck
