// `pipecheck stress` as a library call: one burn worker per GPU (a GPU's fault never stops the
// others), the CPU burn alongside, the telemetry sampler writing telemetry.csv as it samples,
// the watchdog, and at the end summary.json and the verdict.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "inventory/cuda_devices.hpp"
#include "stress/burn_worker.hpp"
#include "stress/cpu_burn_kernel.hpp"
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
  unsigned cpu_threads = 0;  // 0: one per CPU this process may run on
  const CpuBurnKernel* cpu_kernel = nullptr;  // nullptr: the widest this CPU runs (--cpu-isa)
  CpuPrecision cpu_precision = CpuPrecision::fp64;
  std::uint64_t inject_faults = 0;  // results each checker gets corrupted before it checks
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
  std::optional<CudaDeviceFacts> facts;  // what CUDA says of it (for its ceiling)
};

// The CPU burn as it will run, for its ceiling.
struct CpuBurnPlan {
  const CpuBurnKernel* kernel = nullptr;
  CpuPrecision precision = CpuPrecision::fp64;
  unsigned threads = 0;
  std::vector<int> cpus;  // the CPUs it may run on
};

// What the CPU burn's rate is held against: its ceiling, and the sanity bound that holds it
// where the ceiling is unknown.
struct CpuBurnCeilings {
  CeilingResult ceiling;
  std::optional<Ceiling> sanity_bound;
};

// What run_stress gets from the machine; tests replace them with fakes (a GPU that hangs).
struct StressHooks {
  // The GPUs CUDA sees; when none, *why says why ("CUDA driver version is insufficient ...").
  std::function<std::vector<StressGpu>(std::string* why)> discover_gpus;
  std::function<std::unique_ptr<BurnWorker>(const StressGpu&, const StressConfig&)> make_gpu_worker;
  std::function<std::unique_ptr<BurnWorker>(const StressConfig&)> make_cpu_worker;
  // The ceilings the burn rates are held against. The judging side (ceilings/) knows them, so
  // the command sets these (app/stress_ceilings.hpp); unset, the rates are not held against any.
  std::function<CpuBurnCeilings(const CpuBurnPlan&)> cpu_ceiling;
  std::function<CeilingResult(const StressGpu&, BurnDtype)> gpu_ceiling;
};
StressHooks default_stress_hooks();

struct StressOutcome {
  int exit_code = 3;  // 0 pass, 1 fail or invalid, 3 could not run, 130 interrupted
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
