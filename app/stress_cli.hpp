// `pipecheck stress`: its flags (CLI11) and the command, which runs stress/run_stress and turns
// its outcome into the exit code (0 pass, 1 fail or invalid, 2 usage, 3 could not run, 130
// interrupted).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "stress/stress_run.hpp"

namespace pipecheck {

// The flags as parsed; run_stress_command validates and converts them.
struct StressCliState {
  std::string duration = "5m";
  std::string profile = "steady";
  std::optional<std::string> period;
  bool until_failure = false;
  std::string max_duration = "24h";
  bool cpu = false;
  unsigned cpu_threads = 0;
  std::string cpu_isa = "auto";
  std::string cpu_dtype = "fp64";
  std::uint64_t inject_faults = 0;
  std::string gpus;  // "0,2", "none", "" = all
  std::string dtype = "bf16";
  int matrix = 8192;
  std::string out;  // "" = results/stress-<host>-<time>
  bool force = false;  // replace an earlier run's files in --out
  std::string history;  // history store; "" = history.db beside the --out folder
  std::string interval = "1s";
  double tolerance_pct = 10;
  double verify_tolerance = 1e-3;
  std::string hang_timeout = "60s";
  bool no_memtest = false;
  bool plain = false;
  bool no_kernel_log = false;
  std::string sysfs_root = "/";
};

// Adds the `stress` subcommand with its flags bound to `state`.
CLI::App* add_stress_command(CLI::App& app, StressCliState& state);
// Runs it; prints one line and returns 2 for bad flag values, 3 when it cannot run.
int run_stress_command(const StressCliState& state);

// The config run_stress gets; throws UsageError naming the flag.
StressConfig stress_config_from_cli(const StressCliState& state, bool stdout_is_tty);

}  // namespace pipecheck
