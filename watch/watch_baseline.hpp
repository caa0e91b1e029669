// The ceilings an earlier `pipecheck run` measured on this machine, for the watch to hold the
// job's observed rates against: per block device the best storage read (MB/s) and random-read
// IOPS, per GPU the best pinned host-to-device and device-to-host copy rates.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "report/report.hpp"

namespace pipecheck {

struct MeasuredCeiling {
  double value = 0;
  std::string unit;  // "MB/s" or "IOPS"
  std::string what;  // the measurement's display name: "seq read 1 MiB QD32, vda (virtual_disk)"
  std::string key;   // "storage/seq_read/vda"
};

struct MeasuredCeilings {
  std::string source;  // the run folder or file read
  std::string host;
  std::string started_utc;
  // By device name. disk_mbs: the best read with a queue of requests (O_DIRECT or buffered
  // cold); disk_cold_mbs: the best cold buffered read (what a reader through the page cache
  // gets). The 1-thread pread baseline is no ceiling: on a virtual disk it can read the
  // hypervisor's cache, above what the disk delivers cold.
  std::map<std::string, MeasuredCeiling> disk_mbs;
  std::map<std::string, MeasuredCeiling> disk_cold_mbs;
  std::map<std::string, MeasuredCeiling> disk_iops;     // by device name
  std::map<std::string, MeasuredCeiling> pcie_h2d_mbs;  // by GPU bus id ("0000:17:00.0")
  std::map<std::string, MeasuredCeiling> pcie_d2h_mbs;
  bool empty() const {
    return disk_mbs.empty() && disk_cold_mbs.empty() && disk_iops.empty() && pcie_h2d_mbs.empty() &&
           pcie_d2h_mbs.empty();
  }
};

// The best figure per device and direction among the report's storage and pcie measurements.
MeasuredCeilings measured_ceilings(const Report& report, const std::string& source);

// The newest run folder of this host under results_root ("<host>-<UTC>" with a report.json;
// watch-*, stress-* and *.incomplete folders are not runs), or nullopt. A results_root that is
// itself a run folder (it holds report.json) is that run.
std::optional<std::filesystem::path> latest_run_folder(const std::filesystem::path& results_root,
                                                       const std::string& host);

// Reads a run folder, report.json or baseline.json; throws UsageError naming the path when it
// is not one.
MeasuredCeilings load_measured_ceilings(const std::filesystem::path& path);

}  // namespace pipecheck
