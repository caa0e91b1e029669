// Which other processes use the CPU: /proc/PID/stat read twice, the difference in user + system
// time over the interval. The noise-aware driver names them before and around a probe, and
// watch names them when a job's threads wait for CPUs something else holds.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/sysfs.hpp"

namespace pipecheck {

struct ProcessTimes {
  int pid = 0;
  int ppid = 0;
  unsigned long long start_ticks = 0;  // start time since boot; with the pid, the process's key
  unsigned long long cpu_ticks = 0;    // utime + stime
  std::string command;                 // comm, as the kernel keeps it (15 bytes at most)
};

// Every process readable under root's /proc at one moment, by pid.
using ProcessSnapshot = std::map<int, ProcessTimes>;
ProcessSnapshot snapshot_processes(const SysfsRoot& root = SysfsRoot("/"));
// One /proc/PID/stat line; false when it is not one (a process that ended mid-read).
bool parse_process_stat(const std::string& line, ProcessTimes& times);

// pid and all its descendants in the snapshot (the probe and its children, the watch's job).
std::set<int> process_tree(const ProcessSnapshot& snapshot, int pid);

struct ProcessCpu {
  int pid = 0;
  std::string command;
  double cpu_percent = 0;  // percent of one core over the interval (200 = two cores busy)
};

// The busiest processes between two snapshots, most CPU first, leaving out `exclude` and those
// under min_percent. A pid whose start time changed is a new process: only its own time counts.
std::vector<ProcessCpu> top_cpu_consumers(const ProcessSnapshot& before, const ProcessSnapshot& after,
                                          double seconds, const std::set<int>& exclude,
                                          std::size_t limit = 5, double min_percent = 1.0);
// "stress-ng (pid 812) 98%, python3 (pid 77) 12%"; "none" when the list is empty.
std::string describe_consumers(const std::vector<ProcessCpu>& consumers);

}  // namespace pipecheck
