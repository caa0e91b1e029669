// `pipecheck check`: gathers the node's facts (host logic in health/health_check and
// health/expected_machine judges them), prints one line a problem, drains through Slurm.
#include "app/check_command.hpp"

#include <syslog.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "app/duration_flag.hpp"
#include "app/path_flag.hpp"
#include "app/slurm_drain.hpp"
#include "app/stress_ceilings.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/text_escape.hpp"
#include "inventory/cuda_driver_library.hpp"
#include "inventory/inventory_collect.hpp"
#include "inventory/nvml_health.hpp"
#include "health/expected_machine.hpp"
#include "health/health_check.hpp"
#include "history/history_append.hpp"
#include "history/history_sources.hpp"
#include "stress/gpu_burn.hpp"
#include "telemetry/kernel_xids.hpp"
#include "stress/stress_run.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

namespace {

// Each CUDA GPU creates a context, allocates and reads back a pattern.
std::vector<HealthProblem> compute_problems(const Inventory& inventory) {
  std::vector<HealthProblem> problems;
  const CudaDriverLibrary cuda;
  for (const GpuInfo& gpu : inventory.gpus) {
    if (gpu.cuda_index < 0) continue;
    const std::string why = cuda_device_answers(cuda, gpu.cuda_index);
    if (!why.empty()) problems.push_back({Verdict::fail, "gpu " + gpu.pci_bdf, "does not answer compute: " + why});
  }
  return problems;
}

// The GPU burn and memory test on every GPU for `seconds`; its telemetry in `out_dir`.
std::vector<HealthProblem> burn_problems(const Inventory& inventory, double seconds, const fs::path& out_dir,
                                         const fs::path& sysfs_root) {
  const bool any_cuda_gpu = std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                                        [](const GpuInfo& gpu) { return gpu.cuda_index >= 0; });
  if (!any_cuda_gpu) {
    // Asked to burn and nothing was burned: the burn's part of "healthy" was never checked.
    return {{Verdict::inconclusive, "burn", "no GPU to burn: nothing was burned"}};
  }
  if (const auto unavailable = gpu_burn_unavailable()) return {{Verdict::inconclusive, "burn", *unavailable}};
  StressConfig config;
  config.duration_s = seconds;
  config.max_duration_s = seconds;
  config.out_dir = out_dir;
  config.sysfs_root = sysfs_root;
  config.hang_timeout_s = std::max(10.0, seconds);
  reset_stress_stop();
  std::ostringstream progress;
  const StressOutcome outcome = run_stress(config, with_burn_ceilings(default_stress_hooks(), SysfsRoot(sysfs_root)), progress);
  if (outcome.exit_code == 3) return {{Verdict::inconclusive, "burn", "could not run: " + outcome.error}};
  std::vector<HealthProblem> problems;
  if (outcome.exit_code != 0) {
    std::string why;
    for (const auto& reason : outcome.summary.reasons) why += (why.empty() ? "" : "; ") + reason;
    problems.push_back({Verdict::fail, "burn", (why.empty() ? outcome.summary.verdict : why) +
                                                   " (telemetry in " + out_dir.string() + ")"});
  }
  if (outcome.abandoned_workers) {
    // A GPU hung inside the driver: leave without destructors, as `pipecheck stress` does.
    for (const auto& p : problems) std::cout << problem_line(p) << "\n";
    std::cout << "pipecheck check: unhealthy: a GPU hung during the burn\n";
    std::cout.flush();
    std::quick_exit(code(ExitCode::failed));
  }
  return problems;
}

void log_to_syslog(const std::string& line) {
  openlog("pipecheck", LOG_PID, LOG_DAEMON);
  syslog(LOG_WARNING, "%s", line.c_str());
  closelog();
}

}  // namespace

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  if (options.fast && options.burn_s) throw UsageError("check: --burn needs the full check (drop --fast)");
  std::vector<ExpectedMachine> expectations;
  if (!options.expect.empty()) expectations.push_back(load_expectations(options.expect));
  if (!options.baseline.empty()) expectations.push_back(load_baseline_expectations(options.baseline));

  const std::string started_utc = utc_now_iso();
  const SysfsRoot sys(options.sysfs_root);
  InventoryOptions inventory_options;
  inventory_options.cuda = !options.fast;
  const Inventory inventory = collect_inventory(sys, inventory_options);

  std::vector<HealthProblem> problems;
  auto add = [&](std::vector<HealthProblem> more) {
    for (auto& problem : more) problems.push_back(std::move(problem));
  };
  for (const auto& expected : expectations) add(expectation_problems(expected, inventory));
  add(inventory_problems(inventory, default_profile()));
  std::vector<std::string> notes;
  if (!inventory.gpus.empty()) {
    const NvmlLibrary nvml;
    if (nvml.ok()) {
      add(gpu_health_problems(query_gpu_health(nvml)));
    } else {
      notes.push_back("GPU health not read: " + nvml.error());
    }
    const KernelXids xids = read_kernel_xids(options.kernel_log);
    if (xids.readable) {
      add(xid_problems(xids.xids));
    } else {
      notes.push_back(xids.why);
    }
    if (!options.fast) add(compute_problems(inventory));
  }
  if (options.burn_s) {
    fs::path burn_dir = options.burn_out;
    if (burn_dir.empty()) {
      // The library's "temp_directory_path: No such file or directory" named neither TMPDIR nor
      // what it was for.
      std::error_code error;
      const fs::path temporary = fs::temp_directory_path(error);
      if (error) {
        const char* tmpdir = std::getenv("TMPDIR");
        throw UsageError("TMPDIR=" + shortened(escape_name(tmpdir ? tmpdir : "")) + ": " + error.message() +
                         " (the burn's telemetry goes there; give --burn-out DIR)");
      }
      burn_dir = temporary / ("pipecheck-check-burn-" + utc_now_compact());
    }
    add(burn_problems(inventory, *options.burn_s, burn_dir, options.sysfs_root));
  }
  if (options.verbose) {
    for (const auto& note : inventory.notes) notes.push_back(note);
  }

  for (const auto& problem : problems) out << problem_line(problem) << "\n";
  for (const auto& note : notes) err << "pipecheck check: note: " << note << "\n";
  const ExitCode result = check_exit_code(problems, options.prolog);
  const std::size_t gpus = inventory.gpus.size();
  const std::string what = std::to_string(gpus) + " GPU(s)" + (options.fast ? ", fast" : "") +
                           (options.burn_s ? ", burn" : "");
  if (result == ExitCode::failed) {
    out << "pipecheck check: unhealthy (" << what << ")\n";
  } else if (check_exit_code(problems, false) == ExitCode::inconclusive) {
    const std::string line = "pipecheck check: inconclusive (" + what + ")";
    out << line << (options.prolog ? ": exit 0 in a prolog" : "") << "\n";
    if (options.prolog) {
      for (const auto& problem : problems) log_to_syslog(problem_line(problem));
    }
  } else {
    out << "pipecheck check: healthy (" << what << ")\n";
  }

  if (!options.history.empty()) {
    const std::string mode = options.fast ? "fast" : options.burn_s ? "burn" : "full";
    record_in_history(options.history, history_run_from_check(inventory, problems, mode, started_utc), err);
  }
  if (options.slurm_drain && result == ExitCode::failed) {
    const std::string node = options.node.empty() ? slurm_node_name(std::getenv("SLURMD_NODENAME"), host_name()) : options.node;
    const DrainResult drained = drain_node(options.scontrol, node, drain_reason(problems));
    err << "pipecheck check: " << printable_text(drained.message) << "\n";  // $SLURMD_NODENAME: any bytes
    log_to_syslog(drained.message);
  }
  return code(result);
}

CLI::App* add_check_command(CLI::App& app, CheckCliState& state) {
  CheckOptions& o = state.options;
  auto* check = app.add_subcommand(
      "check", "Node health check for Slurm (HealthCheckProgram, prolog, epilog): one line a problem; "
               "exit 0 healthy, 1 unhealthy, 4 inconclusive");
  auto* fast = check->add_flag("--fast", o.fast, "NVML and sysfs only, no CUDA context (seconds)");
  check->add_option("--expect", o.expect, "Expected machine: key = value lines (gpu.count, gpu.model, ...)")
      ->check(existing_path_check(PathKind::file));
  check->add_option("--baseline", o.baseline,
                    "Hold the node against the facts recorded in a baseline.json, run folder or inventory.json")
      ->check(existing_path_check(PathKind::any));
  check->add_option("--burn", state.burn, "Also a verified GEMM burn and memory test on every GPU for this long (30s, 2m)")
      ->excludes(fast);
  check->add_option("--burn-out", o.burn_out, "Folder for the burn's telemetry (default: a temporary folder)");
  check->add_flag("--prolog", o.prolog, "In a job prolog: an inconclusive check exits 0 and logs why");
  check->add_flag("--slurm-drain", o.slurm_drain,
                  "When unhealthy, drain this node: scontrol update nodename=$SLURMD_NODENAME state=drain reason=...");
  check->add_option("--node", o.node, "Node name to drain (default: $SLURMD_NODENAME, else the short host name)");
  check->add_option("--scontrol", o.scontrol, "The scontrol to run")->capture_default_str();
  check->add_option("--sysfs-root", o.sysfs_root, "Read /sys and /proc under this folder (a recorded tree)")
      ->check(existing_path_check(PathKind::directory));
  check->add_option("--kernel-log", o.kernel_log, "Where Xids are read from")->capture_default_str();
  check->add_flag("--verbose", o.verbose, "Also say why facts are unknown");
  check->add_option("--history", o.history, "Append the check to this history store (a SQLite file or postgresql://...)");
  return check;
}

int run_check_command(const CheckCliState& state) {
  CheckOptions options = state.options;
  if (!state.burn.empty()) {
    options.burn_s = duration_flag("--burn", state.burn);
    if (*options.burn_s <= 0) throw UsageError("--burn " + state.burn + ": a duration above zero, e.g. 30s");
  }
  return run_check(options, std::cout, std::cerr);
}

}  // namespace pipecheck
