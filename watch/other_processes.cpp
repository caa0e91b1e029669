// The CPU other processes took while the job was watched.
#include "watch/other_processes.hpp"

#include <algorithm>
#include <cstdio>

#include "watch/process_tree.hpp"

namespace pipecheck {

std::string describe_others(const std::vector<OtherProcess>& others) {
  if (others.empty()) return "none";
  std::string text;
  for (const auto& o : others) {
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.0f%%", o.cpu_percent);
    if (!text.empty()) text += ", ";
    text += o.command + (o.processes > 1 ? " (" + std::to_string(o.processes) + " processes) "
                                         : " (pid " + std::to_string(o.pid) + ") ") +
            percent;
  }
  return text;
}

std::vector<OtherProcess> fold_by_command(const std::map<std::pair<int, std::string>, double>& cpu_s,
                                          double seconds, std::size_t limit, double min_percent) {
  std::map<std::string, OtherProcess> by_name;
  std::map<std::string, double> busiest;
  for (const auto& [key, used] : cpu_s) {
    const auto& [pid, command] = key;
    auto [it, added] = by_name.try_emplace(command, OtherProcess{command, pid, 0, 0});
    ++it->second.processes;
    it->second.cpu_percent += seconds > 0 ? 100.0 * used / seconds : 0;
    if (used > busiest[command]) {
      busiest[command] = used;
      it->second.pid = pid;
    }
  }
  std::vector<OtherProcess> folded;
  for (auto& [name, other] : by_name) {
    if (other.cpu_percent >= min_percent) folded.push_back(other);
  }
  std::sort(folded.begin(), folded.end(), [](const OtherProcess& a, const OtherProcess& b) {
    return a.cpu_percent != b.cpu_percent ? a.cpu_percent > b.cpu_percent : a.command < b.command;
  });
  if (folded.size() > limit) folded.resize(limit);
  return folded;
}

OtherProcessesSampler::OtherProcessesSampler(SysfsRoot root, double every_s) : root_(std::move(root)), every_s_(every_s) {}

void OtherProcessesSampler::sample(double elapsed_s, const std::vector<int>& job_pids, bool force) {
  job_.insert(job_pids.begin(), job_pids.end());
  if (primed_ && !force && elapsed_s - last_s_ < every_s_) return;
  ProcessSnapshot now = snapshot_processes(root_);
  if (primed_ && elapsed_s > last_s_) {
    const double seconds = elapsed_s - last_s_;
    // The job's tree as the snapshot shows it too: a worker born since the last sample.
    std::set<int> exclude = job_;
    for (int pid : job_pids) {
      const auto tree = process_tree(now, pid);
      exclude.insert(tree.begin(), tree.end());
    }
    for (const auto& p : top_cpu_consumers(last_, now, seconds, exclude, now.size(), 0.0)) {
      cpu_s_[{p.pid, sanitize_name(p.command)}] += p.cpu_percent / 100.0 * seconds;
    }
    covered_s_ += seconds;
  }
  last_ = std::move(now);
  last_s_ = elapsed_s;
  primed_ = true;
}

std::vector<OtherProcess> OtherProcessesSampler::top(std::size_t limit) const {
  return fold_by_command(cpu_s_, covered_s_, limit);
}

}  // namespace pipecheck
