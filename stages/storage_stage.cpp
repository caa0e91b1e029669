// The storage stage: reads through io_uring from the disk the dataset lives on (storage/).
#include <cstdint>
#include <optional>

#include "ceilings/ceilings.hpp"
#include "ceilings/physical_ceiling.hpp"
#include "core/stage_names.hpp"
#include "stages/stage_rules.hpp"
#include "stages/stages.hpp"

namespace pipecheck {

namespace {

using namespace stage_rules;

// Storage: the link of the disk the path lives on. Operations per second have no link ceiling.
CeilingResult storage_ceiling(const Measurement& m, const Inventory& inventory, const Siblings&) {
  if (m.unit != "GB/s") {
    return CeilingResult::unknown("no hardware ceiling for " + m.unit + ": a link bounds bytes, not operations");
  }
  const std::string kind = param(m, "disk_kind");
  if (kind == "network_fs") return CeilingResult::unknown("no ceiling: network filesystem");
  if (kind == "loop") return CeilingResult::unknown("no ceiling: loop device (the disk under its backing file bounds it)");
  if (kind == "memory_disk") return CeilingResult::unknown("no ceiling: memory-backed disk (ram, zram)");
  const std::string device = param(m, "device");
  if (device.empty()) return CeilingResult::unknown("unknown: the device behind the path was not found");
  for (const auto& disk : inventory.disks) {
    if (disk.name == device) return disk_read_ceiling(disk);
  }
  return CeilingResult::unknown("unknown: device " + device + " is not in the inventory");
}

// "seq_read", "seq" -> "seq"; "rand_read", "rand" -> "rand"; others as they are.
std::string storage_pattern(const Measurement& m) {
  const std::string pattern = param(m, "pattern");
  if (pattern == "seq_read" || pattern == "seq") return "seq";
  if (pattern == "rand_read" || pattern == "rand") return "rand";
  return pattern;
}

// Operations per second of a random-read measurement: IOPS as measured, or GB/s / block size.
std::optional<double> iops_of(const Measurement& m) {
  if (m.unit == "IOPS") return m.stats.median;
  const int bs = int_param(m.params, "bs", 0);
  if (m.unit == "GB/s" && bs > 0) return m.stats.median * 1e9 / bs;
  return std::nullopt;
}

StageChecks storage_checks(const Measurement& m, const StageContext&) {
  const std::string pattern = storage_pattern(m);
  StageChecks result;
  if (pattern == "seq" && m.unit == "GB/s") {
    result.checks.push_back({CheckKind::percent_min, "storage.seq_read_min_percent", 0, "", ""});
    result.checks.push_back({CheckKind::value_min, "storage.seq_read_min_gbps", m.stats.median, "GB/s", ""});
  } else if (pattern == "rand") {
    if (const auto iops = iops_of(m)) {
      result.checks.push_back({CheckKind::value_min, "storage.rand_read_min_iops", *iops, "IOPS", ""});
    }
  }
  if (result.checks.empty()) result.not_judged = "no threshold for storage pattern '" + param(m, "pattern") + "'";
  return result;
}

// An NVMe link read below an unknown maximum may train up: no bound then. Otherwise the link at
// its maximum.
std::optional<Ceiling> storage_physical(const Measurement& m, const Inventory& as_found, const Inventory& full_speed) {
  const PcieLink* link = nullptr;
  for (const auto& disk : as_found.disks) {
    if (disk.name == param(m, "device") && disk.kind == DiskKind::nvme) link = &disk.pcie;
  }
  if (link != nullptr && !max_link(*link)) return std::nullopt;
  return storage_ceiling(m, full_speed, Siblings{}).ceiling;
}

std::vector<std::string> storage_arguments(const StageRunInputs& run) {
  // The --out folder that holds the run folder: the same filesystem, and a path in the probe's
  // labels that stays true after the run folder drops its ".incomplete".
  std::vector<std::string> args{"--scratch-dir=" + run.scratch_dir.string()};
  for (const auto& path : run.storage_paths) args.push_back("--path=" + path);
  // The images decoded are the dataset a loader reads: read them from their disk too.
  if (run.storage_paths.empty() && !run.images_dir.empty()) args.push_back("--path=" + run.images_dir);
  // The loader's parallelism (--workload workers=N) is measured, so the budget reads it.
  if (run.workers) args.push_back("--workers=" + std::to_string(*run.workers));
  return args;
}

}  // namespace

StageSpec storage_stage() {
  StageSpec s;
  s.name = stage_name::storage;
  s.title = "Storage reads";
  s.description =
      "storage reads through io_uring: sequential 1 MiB, random 4 KiB IOPS with latency, "
      "dataset files, cold page cache, and a one-thread pread baseline";
  s.executable = "pipecheck-storage";
  s.planned_cases = [](const Inventory&, ProbeMode) {
    // One target (the --out folder's filesystem); each --path adds its own four.
    std::vector<std::string> names;
    for (const char* c : {"seq_read", "rand_read", "seq_read_buffered_cold", "pread_baseline"}) {
      names.push_back(std::string("storage/") + c + "/target/manual_time");
    }
    return names;
  };
  s.probe_arguments = storage_arguments;
  s.probe_checks_inputs = true;
  s.ceiling = [](const Measurement& m, const StageContext& c) { return storage_ceiling(m, c.inventory, c.siblings); };
  s.physical = storage_physical;
  s.checks = storage_checks;
  s.profile_text = R"(# Storage (stage storage). A link bounds a disk but its media is often slower by design (a
# 250 MB/s HDD on a 6 Gb/s SATA link), so % of the link is not judged by default; set absolute
# minimums for the disk your data lives on.
storage.seq_read_min_percent = off
storage.seq_read_min_gbps = off
storage.rand_read_min_iops = off
)";
  s.profile_keys = {
      {"storage.seq_read_min_percent", ProfileValueKind::percent, "sequential read, min % of the disk's link"},
      {"storage.seq_read_min_gbps", ProfileValueKind::number, "sequential read, min GB/s"},
      {"storage.rand_read_min_iops", ProfileValueKind::number, "random read, min IOPS"},
  };
  s.advice =
      "Check that the disk measured is the one the dataset lives on and that nothing else reads from it "
      "(iostat -x while the probe runs); for a network file system check its server and link. Stage the dataset "
      "on local NVMe, or pack it into fewer, larger files.";
  s.measurement_contract =
      "device (sysfs name), disk_kind, pattern (seq_read|rand_read|dataset_read|seq_read_buffered_cold|"
      "dataset_read_buffered_cold|pread_baseline; the short forms seq|rand|dataset|cold_buffered|baseline_pread "
      "are accepted too), bs (bytes a read), target (scratch_file|file|directory|device); unit GB/s or IOPS. "
      "Ceiling: disk_read_ceiling of the device (GB/s only).";
  return s;
}

}  // namespace pipecheck
