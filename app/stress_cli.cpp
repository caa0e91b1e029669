// The `pipecheck stress` flags and command. SIGINT/SIGTERM stop the run early and still write
// the summary; a worker stuck in the driver ends the process with quick_exit (documented below).
#include "app/stress_cli.hpp"


#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "app/duration_flag.hpp"
#include "app/number_flag.hpp"
#include "app/out_folder.hpp"
#include "app/path_flag.hpp"
#include "app/stress_ceilings.hpp"
#include "app/stop_signals.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "history/history_append.hpp"
#include "history/history_sources.hpp"
#include "stress/cpu_burn_isa.hpp"

namespace fs = std::filesystem;

namespace pipecheck {

namespace {

void on_stop_signal(int, siginfo_t*, void*) { request_stress_stop(); }

std::vector<int> gpu_list(const std::string& text) {
  std::vector<int> indices;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    char* end = nullptr;
    const long index = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || index < 0) {
      throw UsageError("--gpus: '" + text + "' is not a list of GPU indices (e.g. 0,2) or 'none'");
    }
    indices.push_back(static_cast<int>(index));
  }
  return indices;
}

}  // namespace

CLI::App* add_stress_command(CLI::App& app, StressCliState& s) {
  auto* cmd = app.add_subcommand(
      "stress", "Burn the GPUs (and with --cpu the CPUs) with verified work while recording telemetry");
  cmd->add_option("--duration", s.duration, "How long to burn: 90, 90s, 10m, 2h")->capture_default_str();
  cmd->add_option("--profile", s.profile, "Load profile: steady, pulse (on/off every --period), ramp (steps up)")
      ->check(CLI::IsMember({"steady", "pulse", "ramp"}))
      ->capture_default_str();
  cmd->add_option("--period", s.period,
                  "pulse: one on+off cycle (default 10s); ramp: one of 4 steps (default duration/4)");
  auto* until = cmd->add_flag("--until-failure", s.until_failure,
                              "Run until a wrong result, hang, Xid or fault (at most --max-duration)");
  cmd->add_option("--max-duration", s.max_duration, "Longest run with --until-failure")
      ->capture_default_str()
      ->needs(until);
  cmd->add_flag("--cpu", s.cpu, "Burn every CPU core too (the workload on a machine without a GPU)");
  cmd->add_option("--cpu-threads", s.cpu_threads, "CPU burn threads (default: one per CPU this process may use, within its cgroup quota)")
      ->check(whole_number_check(1, 1000000));
  cmd->add_option("--cpu-isa", s.cpu_isa,
                  "CPU burn instruction set: auto (the widest this CPU runs), " + cpu_burn_isa_names())
      ->capture_default_str();
  cmd->add_option("--cpu-dtype", s.cpu_dtype, "CPU burn precision: fp64, fp32")->capture_default_str();
  cmd->add_option("--inject-faults", s.inject_faults,
                  "Corrupt N results of each checker (CPU burn, each GPU's GEMMs and memory test) between "
                  "compute and check, to see them caught: the run must fail with at least N wrong")
      ->check(whole_number_check(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--gpus", s.gpus, "CUDA indices to burn, e.g. 0,2, or 'none' (default: all)");
  cmd->add_option("--dtype", s.dtype, "GEMM data type: " + burn_dtype_names())->capture_default_str();
  cmd->add_option("--matrix", s.matrix, "GEMM size n (n x n x n)")->check(whole_number_check(256, 32768))->capture_default_str();
  cmd->add_option("--out", s.out, "Folder for telemetry.csv and summary.json (default results/stress-<host>-<time>)");
  cmd->add_flag("--force", s.force, "Replace the telemetry.csv and summary.json of an earlier run in --out");
  cmd->add_option("--history", s.history, "History store to append the run to (default: history.db beside --out)");
  cmd->add_option("--interval", s.interval, "Telemetry sampling interval")->capture_default_str();
  cmd->add_option("--tolerance", s.tolerance_pct, "A GPU slower than the median by more than this % fails")
      ->check(number_check(0, 100))
      ->capture_default_str();
  cmd->add_option("--verify-tolerance", s.verify_tolerance,
                  "Relative difference from the reference that makes a GEMM element wrong")
      ->check(number_check(0, 1))
      ->capture_default_str();
  cmd->add_option("--hang-timeout", s.hang_timeout, "A GEMM batch or memory pass longer than this is a hang")
      ->capture_default_str();
  cmd->add_flag("--no-memtest", s.no_memtest, "Skip the GPU memory pattern test");
  cmd->add_flag("--plain", s.plain, "Plain progress lines even on a terminal");
  cmd->add_flag("--no-kernel-log", s.no_kernel_log, "Do not read Xids from /dev/kmsg");
  cmd->add_option("--sysfs-root", s.sysfs_root, "Read host sensors and the CPU ceiling's facts under this folder (a recorded tree)")
      ->check(existing_path_check(PathKind::directory))
      ->group("");
  return cmd;
}

StressConfig stress_config_from_cli(const StressCliState& s, bool stdout_is_tty) {
  StressConfig config;
  config.duration_s = duration_flag("--duration", s.duration);
  const auto shape = parse_load_shape(s.profile);
  if (!shape) throw UsageError("--profile: unknown profile '" + s.profile + "' (steady, pulse, ramp)");
  config.profile.shape = *shape;
  config.until_failure = s.until_failure;
  config.max_duration_s = duration_flag("--max-duration", s.max_duration);
  const double planned = config.until_failure ? config.max_duration_s : config.duration_s;
  if (s.period) {
    config.profile.period_s = duration_flag("--period", *s.period);
  } else if (config.profile.shape == LoadShape::ramp) {
    config.profile.period_s = config.until_failure ? 60.0 : planned / config.profile.ramp_steps;
  }
  config.cpu = s.cpu;
  config.cpu_threads = s.cpu_threads;
  if (s.cpu_isa != "auto") {
    config.cpu_kernel = find_cpu_burn_kernel(s.cpu_isa);
    if (!config.cpu_kernel) {
      throw UsageError("--cpu-isa: unknown instruction set '" + s.cpu_isa + "' (auto, " + cpu_burn_isa_names() + ")");
    }
    if (!cpu_runs(*config.cpu_kernel)) {
      throw UsageError("--cpu-isa: this CPU does not run " + std::string(config.cpu_kernel->display) +
                       " (it runs " + widest_cpu_burn_kernel().isa + ")");
    }
  }
  if (!parse_cpu_precision(s.cpu_dtype, &config.cpu_precision)) {
    throw UsageError("--cpu-dtype: unknown precision '" + s.cpu_dtype + "' (fp64, fp32)");
  }
  config.inject_faults = s.inject_faults;
  if (s.gpus == "none") {
    config.no_gpu = true;
  } else if (!s.gpus.empty()) {
    config.gpus = gpu_list(s.gpus);
  }
  const auto dtype = parse_burn_dtype(s.dtype);
  if (!dtype) throw UsageError("--dtype: unknown type '" + s.dtype + "' (" + burn_dtype_names() + ")");
  config.dtype = *dtype;
  config.matrix_n = s.matrix;
  config.out_dir = s.out.empty() ? std::filesystem::path("results") / ("stress-" + host_name() + "-" + utc_now_compact())
                                 : std::filesystem::path(s.out);
  config.interval_s = duration_flag("--interval", s.interval);
  if (config.interval_s < 0.05) throw UsageError("--interval: at least 0.05 s");
  config.slow_tolerance_pct = s.tolerance_pct;
  config.verify_tolerance = s.verify_tolerance;
  config.hang_timeout_s = duration_flag("--hang-timeout", s.hang_timeout);
  config.memtest = !s.no_memtest;
  config.read_kernel_log = !s.no_kernel_log;
  config.sysfs_root = s.sysfs_root;
  config.tty = stdout_is_tty && !s.plain;
  return config;
}

int run_stress_command(const StressCliState& state) {
  // Errors reach cli.cpp, the one place that turns them into a line and exit code 2 or 3.
  StressOutcome outcome;
  {
    const StressConfig config = stress_config_from_cli(state, isatty(STDOUT_FILENO) == 1);
    claim_out_folder(config.out_dir, {"telemetry.csv", "summary.json"}, state.force);
    reset_stress_stop();
    const StopSignals signals(on_stop_signal);
    outcome = run_stress(config, with_burn_ceilings(default_stress_hooks(), SysfsRoot(config.sysfs_root)),
                         std::cout);
    if (outcome.exit_code != 3) {
      const auto store = history_location(state.history, fs::absolute(config.out_dir).parent_path());
      record_in_history(store, history_run_from_stress(outcome.summary, fs::absolute(config.out_dir).string()), std::cerr);
    }
  }
  if (outcome.exit_code == 3) {
    std::cerr << "pipecheck: could not run: " << outcome.error << "\n";
    return 3;
  }
  if (outcome.abandoned_workers) {
    // A worker thread is stuck inside a CUDA call on a hung GPU. A normal return would run the
    // static destructors, and the CUDA runtime's teardown then waits on that same context
    // forever: the summary is written, so leave now, without destructors.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::quick_exit(outcome.exit_code);
  }
  return outcome.exit_code;
}

}  // namespace pipecheck
