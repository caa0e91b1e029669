// Many hosts' runs side by side (a fleet): each measurement against the fleet's median, naming
// the hosts and the GPUs that fall short of it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/measurement.hpp"
#include "compare/baseline.hpp"

namespace pipecheck {

struct FleetOptions {
  double tolerance_percent = 10.0;  // worse than the fleet median by more than this: an outlier
  int min_samples = 3;              // fewer figures than this give no median worth judging by
};

// One host's (or one GPU's) figure for a group.
struct FleetSample {
  std::string host;
  std::string gpu;       // PCI bus id ("gpu 3" when the inventory did not say); empty: host-wide
  std::string gpu_name;
  std::string key;       // the measurement's own key
  Statistics stats;
  double deviation_percent = 0;  // (median - fleet median) / fleet median
  bool outlier = false;
};

// Measurements that should agree across the fleet: the same key, or for GPU measurements the
// key without its GPU part on the same GPU model, so every GPU is held against every other.
struct FleetGroup {
  std::string group;  // "hostmem/memcpy/threads:1", "compute/gemm/bf16 [NVIDIA H100 80GB HBM3]"
  std::string what;
  std::string unit;
  bool higher_is_better = true;
  bool judged = false;  // false: fewer than min_samples figures
  double fleet_median = 0;
  std::vector<FleetSample> samples;  // sorted by host, then GPU
};

// A host (gpu empty) or a GPU with figures beyond the tolerance.
struct FleetOutlier {
  std::string host;
  std::string gpu;
  std::string gpu_name;
  int outlier_count = 0;
  double worst_deviation_percent = 0;  // the most-worse of its figures, signed
  std::string worst_key;  // the measurement key of that figure
};

struct FleetRun {
  std::string host;
  std::string source;
  std::string started_utc;
};

struct FleetResult {
  FleetOptions options;
  std::vector<FleetRun> runs;  // one a host, sorted by host
  std::vector<FleetGroup> groups;
  std::vector<FleetOutlier> outlier_hosts;
  std::vector<FleetOutlier> outlier_gpus;
  std::vector<std::string> notes;

  bool has_outliers() const { return !outlier_hosts.empty() || !outlier_gpus.empty(); }
};

// "compute/gemm/bf16/gpu0" -> "compute/gemm/bf16": drops the parts that name one GPU
// (gpuN, gpu:N, gpu_bdf:...).
std::string strip_gpu_part(const std::string& key);

// Each input is a run folder, a report.json, or a folder holding run folders (results/, or a
// folder gathered from many hosts); *.incomplete folders are skipped. The latest run of each host
// is kept. Throws UsageError naming the input: nothing found, fewer than 2 hosts, or mixed report
// schema versions (unless force).
std::vector<LoadedRun> load_fleet(const std::vector<std::filesystem::path>& inputs, bool force,
                                  std::vector<std::string>& notes);

FleetResult analyze_fleet(const std::vector<LoadedRun>& runs, const FleetOptions& options = {});

nlohmann::json fleet_to_json(const FleetResult& result);

}  // namespace pipecheck
