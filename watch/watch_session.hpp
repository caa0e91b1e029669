// `pipecheck watch` as a library call: start the command (its stdin, stdout and stderr are the
// watch's own, untouched) or attach to a running pid; sample the GPUs, the process tree, the
// host's CPUs and the job's disks once an interval into watch.csv; at the end judge the samples
// by the rules table and write watch.json and watch.html (each atomically) beside the CSV.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "inventory/nvml_library.hpp"
#include "watch/watch_report.hpp"
#include "watch/watch_sample.hpp"

namespace pipecheck {

struct WatchConfig {
  std::vector<std::string> command;  // run this (argv[0] looked up in PATH), or ...
  std::optional<int> pid;            // ... attach to this process and its descendants
  std::optional<double> duration_s;  // stop watching after this; the command keeps running
  double interval_s = 1.0;
  std::filesystem::path out_dir;
  std::optional<std::filesystem::path> baseline;  // a run folder, report.json or baseline.json
  bool find_baseline = true;                      // else: the latest run of this host under ...
  std::filesystem::path results_root = "results";
  std::vector<std::string> disks;  // judge these block devices instead of finding the job's
  std::filesystem::path sysfs_root = "/";
  bool use_nvml = true;
  std::string nvml_path = NvmlLibrary::default_path;
  int tty_fd = -1;          // live view redrawn on this terminal; -1: plain lines
  bool live = true;         // false: no live lines at all
  double plain_every_s = 10;
  double verdict_every_s = 5;  // how often the live view's provisional verdict is recomputed
  // Turn the kernel's task delay accounting on for the watch (root; the user asked for it):
  // exact blocked-on-I/O time instead of thread states. Set back as it was at the end.
  bool enable_delay_accounting = false;
  double state_looks_per_s = 10;  // thread-state looks between samples, without delay accounting
};

struct WatchOutcome {
  int exit_code = 0;  // command: the job's (128 + signal when killed); pid: 0
  WatchReport report;
  std::vector<WatchSample> samples;
  std::filesystem::path csv_path;
  std::filesystem::path json_path;
  std::filesystem::path html_path;
};

// Throws UsageError for a pid that does not exist, a command that cannot be found or run, and a
// baseline that is not a run; RunError when the output folder cannot be written. Live lines, the
// final verdict and notes go to `err` (stderr), never to stdout.
WatchOutcome run_watch(const WatchConfig& config, std::ostream& err);

// From a SIGINT/SIGTERM handler (async-signal-safe). A signal sent by another process to the
// watch is passed on to the watched command, which decides when it ends (one from the terminal
// reached the command already: the command shares the watch's process group). Attached to a
// pid, any stop signal ends the watch, and the results are written.
void on_watch_signal(int signal, bool sent_by_process);
// Clears a previous stop (tests run several watches in one process).
void reset_watch_stop();

// argv[0] as exec would find it: a path with '/', else the first match in PATH. Throws
// UsageError naming the command when it is missing or not executable.
std::string resolve_command(const std::string& name);

}  // namespace pipecheck
