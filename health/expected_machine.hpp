// The machine a node should be: from `pipecheck check --expect FILE` (key = value lines) or from
// a baseline's recorded inventory. `check` holds the inventory it finds against it, one problem a
// fact that differs. A fact left unset is not checked.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "health/health_check.hpp"

namespace pipecheck {

struct ExpectedMachine {
  std::string source;                                 // "expect.conf", "baseline results/baseline.json"
  std::optional<int> gpu_count;                       // gpu.count = 8
  std::optional<std::string> gpu_model;               // gpu.model = NVIDIA H100 80GB HBM3 (every GPU)
  std::optional<std::uint64_t> gpu_memory_min_bytes;  // gpu.memory_min = 79GiB (every GPU)
  std::optional<int> pcie_width;                      // gpu.pcie_width = 16 (lanes now, every GPU)
  std::optional<double> pcie_gts;                     // gpu.pcie_gts = 32 (GT/s a lane at the link's best)
  std::optional<std::uint64_t> host_memory_min_bytes;  // host.memory_min = 2000GiB (MemTotal)
  std::optional<int> cpus;                            // host.cpus = 192 (logical CPUs)
  std::optional<std::string> driver_version;          // driver.version = 580.65.06
  std::optional<int> cuda_driver_min;                 // cuda.driver_min = 12.4 (the driver's CUDA)
};

// One key an --expect file may set, with its meaning (docs/fleets.md and errors list them).
struct ExpectKeySpec {
  const char* name;
  const char* meaning;
};
const std::vector<ExpectKeySpec>& expect_keys();

// Parses `key = value` lines ('#' starts a comment). Throws UsageError naming the source, the
// line and what is wrong: an unknown key (the known ones listed), a bad value, a key set twice.
ExpectedMachine parse_expectations(const std::string& text, const std::string& source);
// --expect FILE. Throws UsageError when it cannot be read or does not parse.
ExpectedMachine load_expectations(const std::filesystem::path& path);

// What a recorded inventory says this node should be: its GPU count, model (when all agree),
// each GPU's memory (at least 99% of the smallest recorded), link width and best speed (the
// narrowest and slowest recorded), MemTotal (at least 98%: a lost DIMM is 1/8 or more),
// logical CPUs, driver version and the driver's CUDA version.
ExpectedMachine expectations_from_inventory(const Inventory& recorded, const std::string& source);
// --baseline PATH: a baseline.json (its "inventory", or for one recorded before baselines held
// it, the GPU count and model of its identity), a run folder (its inventory.json) or an
// inventory.json. Throws UsageError naming the path.
ExpectedMachine load_baseline_expectations(const std::filesystem::path& path);

// Each fact of `expected` that `found` does not meet, as a fail; a fact the node cannot tell
// (a link width NVML and sysfs do not report) as inconclusive.
std::vector<HealthProblem> expectation_problems(const ExpectedMachine& expected, const Inventory& found);

}  // namespace pipecheck
