// Which processes outside the job used the CPU while it was watched: /proc snapshots a few
// seconds apart (core/top_processes), the job's tree left out, each process's CPU time summed,
// and processes of one name folded together (a build's hundred short compiler runs are one
// consumer). The contention rule names them.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/sysfs.hpp"
#include "core/top_processes.hpp"

namespace pipecheck {

struct OtherProcess {
  std::string command;     // comm, sanitized
  int pid = 0;             // the busiest process of that name
  int processes = 1;       // how many of that name were seen
  double cpu_percent = 0;  // of one core, averaged over the time covered
};

// "stress (pid 812) 98%, cc1plus (14 processes) 85%"; "none" when empty.
std::string describe_others(const std::vector<OtherProcess>& others);

// Folds per-process CPU seconds into one entry per command name, busiest first, over `seconds`,
// leaving out those under min_percent.
std::vector<OtherProcess> fold_by_command(const std::map<std::pair<int, std::string>, double>& cpu_s,
                                          double seconds, std::size_t limit, double min_percent = 1.0);

class OtherProcessesSampler {
 public:
  // every_s: the least time between two snapshots (a full /proc scan each).
  explicit OtherProcessesSampler(SysfsRoot root, double every_s = 2.0);

  // Called at each watch sample with the job's pids of that sample; takes a snapshot when
  // every_s has passed since the last one (or `force`, at the end).
  void sample(double elapsed_s, const std::vector<int>& job_pids, bool force = false);

  std::vector<OtherProcess> top(std::size_t limit = 5) const;
  double covered_s() const { return covered_s_; }

 private:
  SysfsRoot root_;
  double every_s_;
  bool primed_ = false;
  double last_s_ = 0;
  double covered_s_ = 0;
  ProcessSnapshot last_;
  std::set<int> job_;  // every pid the job's tree had
  std::map<std::pair<int, std::string>, double> cpu_s_;
};

}  // namespace pipecheck
