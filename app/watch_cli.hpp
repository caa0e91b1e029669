// `pipecheck watch`: its flags (CLI11) and the command, which runs watch/run_watch and returns
// the watched command's exit code (attached to a pid: 0), 2 for bad input, 3 when it cannot run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "watch/watch_session.hpp"

namespace pipecheck {

// The flags as parsed; watch_config_from_cli validates and converts them.
struct WatchCliState {
  std::vector<std::string> command;  // after --
  std::optional<int> pid;
  std::string duration;  // "" = the job's lifetime
  std::string interval = "1s";
  std::string out;       // "" = results/watch-<host>-<time>
  std::string baseline;  // a pipecheck run folder; "" = the latest of this host under --results
  bool no_baseline = false;
  std::string results = "results";
  std::vector<std::string> disks;
  bool plain = false;
  bool quiet = false;
  bool no_gpu = false;
  bool list_rules = false;
  bool delayacct = false;
  std::string sysfs_root = "/";
};

// Adds the `watch` subcommand with its flags bound to `state`.
CLI::App* add_watch_command(CLI::App& app, WatchCliState& state);
// Runs it; prints one line and returns 2 for bad flag values, 3 when it cannot run.
int run_watch_command(const WatchCliState& state);
// The config run_watch gets; throws UsageError naming the flag.
WatchConfig watch_config_from_cli(const WatchCliState& state, bool stderr_is_tty);

}  // namespace pipecheck
