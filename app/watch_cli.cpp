// The `pipecheck watch` flags and command. SIGINT/SIGTERM sent to the watch are passed on to a
// command it started (which decides when it ends); attached to a pid they end the watch, and the
// results are written either way.
#include "app/watch_cli.hpp"

#include <unistd.h>

#include <csignal>
#include <iostream>

#include "app/duration_flag.hpp"
#include "app/number_flag.hpp"
#include "app/out_folder.hpp"
#include "app/stop_signals.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "watch/watch_rules.hpp"

namespace pipecheck {

namespace {

void on_signal(int signal, siginfo_t* info, void*) {
  // SI_USER/SI_QUEUE/SI_TKILL: kill() from a process. A ^C from the terminal (SI_KERNEL) reached
  // the command already: it is in our process group.
  const bool sent = info && (info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL);
  on_watch_signal(signal, sent);
}


}  // namespace

CLI::App* add_watch_command(CLI::App& app, WatchCliState& s) {
  auto* cmd = app.add_subcommand(
      "watch", "Watch a training job (-- COMMAND..., or --pid N): which stage is it waiting on?");
  // No expected(0, -1): with it, CLI11 2.1 hands what follows "--" to the parent app.
  cmd->add_option("command", s.command, "The command to run and watch, after --");
  cmd->add_option("--pid", s.pid, "Attach to this running process (and its descendants) instead")
      ->check(whole_number_check(1, 999999999));  // one that is not running is named after
  cmd->add_option("--duration", s.duration, "Stop watching after this (90s, 10m); default: the job's lifetime");
  cmd->add_option("--interval", s.interval, "Sampling interval")->capture_default_str();
  cmd->add_option("--out", s.out, "Folder for watch.csv, watch.json, watch.html (default results/watch-<host>-<time>)");
  cmd->add_flag("--force", s.force, "Replace the watch.csv, watch.json and watch.html of an earlier watch in --out");
  cmd->add_option("--baseline", s.baseline,
                  "Results of an earlier pipecheck run (folder, report.json or baseline.json) whose measured "
                  "ceilings the observed rates are held against (default: the latest of this host under --results)");
  cmd->add_flag("--no-baseline", s.no_baseline, "Do not compare with measured ceilings");
  cmd->add_option("--results", s.results,
                  "Where the latest pipecheck run of this host is looked for: a results folder, or one run folder")
      ->capture_default_str();
  cmd->add_option("--disk", s.disks, "Judge this block device (e.g. nvme0n1) instead of finding the job's (repeatable)");
  cmd->add_flag("--plain", s.plain, "Plain live lines every 10 s even on a terminal");
  cmd->add_flag("--quiet", s.quiet, "No live lines, only the verdict at the end");
  cmd->add_flag("--no-gpu", s.no_gpu, "Do not load NVML: CPU and disk rules only");
  cmd->add_flag("--list-rules", s.list_rules, "Print the rules table and exit");
  cmd->add_flag("--delayacct", s.delayacct,
                "Turn on the kernel's task delay accounting for the watch (root; off again after) for exact "
                "blocked-on-I/O time; without it, thread states are looked at 10 times a second");
  cmd->add_option("--sysfs-root", s.sysfs_root, "Read /proc and /sys under this folder")->group("");
  return cmd;
}

WatchConfig watch_config_from_cli(const WatchCliState& s, bool stderr_is_tty) {
  if (s.pid && !s.command.empty()) throw UsageError("watch: give either a command after -- or --pid N, not both");
  if (!s.pid && s.command.empty()) throw UsageError("watch: nothing to watch: give a command after -- or --pid N");
  if (s.no_baseline && !s.baseline.empty()) throw UsageError("--baseline: not with --no-baseline");
  WatchConfig config;
  config.command = s.command;
  config.pid = s.pid;
  if (!s.duration.empty()) config.duration_s = duration_flag("--duration", s.duration);
  config.interval_s = duration_flag("--interval", s.interval);
  if (config.interval_s < 0.05) throw UsageError("--interval: '" + s.interval + "' is below the shortest, 0.05 s");
  config.out_dir = s.out.empty() ? std::filesystem::path("results") / ("watch-" + host_name() + "-" + utc_now_compact())
                                 : std::filesystem::path(s.out);
  if (!s.baseline.empty()) config.baseline = s.baseline;
  config.find_baseline = !s.no_baseline;
  config.results_root = s.results;
  config.disks = s.disks;
  config.sysfs_root = s.sysfs_root;
  config.use_nvml = !s.no_gpu;
  config.live = !s.quiet;
  config.enable_delay_accounting = s.delayacct;
  config.tty_fd = stderr_is_tty && !s.plain ? STDERR_FILENO : -1;
  return config;
}

int run_watch_command(const WatchCliState& state) {
  if (state.list_rules) {
    std::cout << render_rules_table();
    return 0;
  }
  // Errors reach cli.cpp, the one place that turns them into a line and exit code 2 or 3.
  const WatchConfig config = watch_config_from_cli(state, isatty(STDERR_FILENO) == 1);
  claim_out_folder(config.out_dir, {"watch.csv", "watch.json", "watch.html"}, state.force);
  reset_watch_stop();
  const StopSignals signals(on_signal, SA_RESTART);
  return run_watch(config, std::cerr).exit_code;
}

}  // namespace pipecheck
