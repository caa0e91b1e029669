// `pipecheck check`: a node health check for Slurm's HealthCheckProgram, a job prolog or an
// epilog, in seconds. Inventory facts against an expected machine (--expect FILE or
// --baseline), the inventory's own verdicts (a GPU on the bus the driver does not see, a
// downtrained link, a driver older than the runtime), GPU health from NVML (pages or rows
// pending, volatile double-bit ECC, a slowdown now), Xids since boot from the kernel log, each
// GPU answering compute (not with --fast), and with --burn a short verified GEMM burn and memory
// test. One line a problem; exit 0 healthy, 1 unhealthy, 4 inconclusive (0 with --prolog).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace pipecheck {

struct CheckOptions {
  bool fast = false;               // NVML and sysfs only: no cuInit, no compute answer, no burn
  std::filesystem::path expect;    // --expect FILE
  std::filesystem::path baseline;  // --baseline PATH (baseline.json, run folder, inventory.json)
  std::optional<double> burn_s;    // --burn: seconds of GEMM burn and memory test on every GPU
  bool prolog = false;             // an inconclusive check exits 0 (and says why in the log)
  bool slurm_drain = false;        // drain this node through scontrol when unhealthy
  std::string scontrol = "scontrol";
  std::string node;                // the node to drain; "" = $SLURMD_NODENAME, else the short host name
  std::filesystem::path sysfs_root = "/";
  std::string kernel_log = "/dev/kmsg";
  std::filesystem::path burn_out;  // where the burn's telemetry goes; "" = a temporary folder
  bool verbose = false;            // also the notes (why a fact is unknown)
  std::string history;             // --history: a store to append the check to; "" = none
};

// The flags as parsed (strings where run_check validates them).
struct CheckCliState {
  CheckOptions options;
  std::string burn;  // "30s", "2m"
};
CLI::App* add_check_command(CLI::App& app, CheckCliState& state);
int run_check_command(const CheckCliState& state);

// The check itself: problems on `out` (one line each, then one summary line), notes and the
// drain on `err`. Returns the exit code. Throws UsageError for bad input before it checks.
int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipecheck
