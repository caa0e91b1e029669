// The record of one watch: what was watched, how it ended, the analysis and the verdict, the
// processes and threads that used the CPU, and notes on what could not be sampled. The JSON,
// terminal and HTML renderers all read this one record (STYLE 2).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "watch/process_tree.hpp"
#include "watch/watch_analysis.hpp"
#include "watch/watch_rules.hpp"

namespace pipecheck {

struct WatchReport {
  int version = kWatchSchemaVersion;
  std::string pipecheck_version;
  std::string host;
  std::string started_utc;
  std::string finished_utc;
  std::string mode;  // "command" or "pid"
  std::vector<std::string> command;
  int pid = 0;       // the root of the watched tree
  double interval_s = 1;
  std::optional<double> duration_limit_s;
  std::string stopped_by;  // "job_exited", "duration", "interrupted"
  std::string job_ending;  // "exit code 0", "killed by signal 9 (Killed)", "still running"
  std::optional<int> job_exit_code;  // as pipecheck returns it (128 + signal when killed)
  std::vector<std::string> gpus;     // "gpu0 0000:17:00.0 NVIDIA H100 80GB HBM3"
  std::vector<std::pair<std::string, std::string>> job_devices;  // name, why it is the job's
  std::string devices_how;  // how the disks were chosen, in words
  WatchAnalysis analysis;
  WatchVerdict verdict;
  std::string baseline_source;  // the run whose ceilings were used; "" when none
  bool baseline_wanted = true;  // false: --no-baseline
  std::vector<ThreadTotal> top_threads;
  std::vector<ProcessTotal> processes;
  std::vector<std::string> notes;
  double sampler_cpu_ms_per_sample = 0;  // the watch's own cost, measured
  std::string csv_file = "watch.csv";
};

}  // namespace pipecheck
