// `pipecheck stress` as a library call: one burn worker per GPU (a GPU's fault never stops the
// others), the CPU burn alongside, the telemetry sampler writing telemetry.csv as it samples,
// the watchdog, and at the end summary.json and the verdict.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "stress/burn_worker.hpp"
#include "stress/gpu_burn.hpp"
#include "stress/load_profile.hpp"
#include "stress/stress_summary.hpp"

namespace pipecheck {

struct StressConfig {
  double duration_s = 300;
  LoadProfile profile;
  bool until_failure = false;
  double max_duration_s = 24 * 3600;
  bool cpu = false;
  unsigned cpu_threads = 0;  // 0: every hardware thread
  bool no_gpu = false;       // --gpus none: the CPU burn alone on a GPU machine
  std::vector<int> gpus;     // CUDA indices; empty: every visible GPU
  BurnDtype dtype = default_burn_dtype;
  int matrix_n = 8192;
  double verify_tolerance = 1e-3;
  bool memtest = true;
  std::filesystem::path out_dir = "stress-results";
  double interval_s = 1.0;
  double slow_tolerance_pct = 10;
  double hang_timeout_s = 60;  // a batch of GEMMs or a memory pass longer than this is a hang
  std::filesystem::path sysfs_root = "/";
  bool read_kernel_log = true;
  bool use_nvml = true;
  bool tty = false;  // live progress redrawn in place
};

struct StressGpu {
  int index = -1;  // CUDA ordinal
  std::string bus_id;
  std::string name;
};

// What run_stress gets from the machine; tests replace them with fakes (a GPU that hangs).
struct StressHooks {
  // The GPUs CUDA sees; when none, *why says why ("CUDA driver version is insufficient ...").
  std::function<std::vector<StressGpu>(std::string* why)> discover_gpus;
  std::function<std::unique_ptr<BurnWorker>(const StressGpu&, const StressConfig&)> make_gpu_worker;
  std::function<std::unique_ptr<BurnWorker>(const StressConfig&)> make_cpu_worker;
};
StressHooks default_stress_hooks();

struct StressOutcome {
  int exit_code = 3;  // 0 pass, 1 fail, 3 could not run
  std::string error;  // could not run: why
  StressSummary summary;
  std::filesystem::path csv_path;
  std::filesystem::path summary_path;
  // A worker hung: its thread is detached inside a driver call, or it returned but left a stuck
  // CUDA context behind. Either way the caller must leave with std::quick_exit after the summary
  // (see app/stress_cli.cpp): a normal exit would wait forever in the CUDA runtime's teardown.
  bool abandoned_workers = false;
};

// Throws UsageError for a GPU index that does not exist and RunError when the output folder
// cannot be written; everything that happens to a worker is in the outcome.
StressOutcome run_stress(const StressConfig& config, const StressHooks& hooks, std::ostream& out);

// Asks a running run_stress to stop now and write its summary (async-signal-safe, for SIGINT).
void request_stress_stop();
// Clears a previous request (tests run several stresses in one process).
void reset_stress_stop();

}  // namespace pipecheck
