// CPU time of every process from /proc/PID/stat (see top_processes.hpp).
#include "core/top_processes.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace pipecheck {

bool parse_process_stat(const std::string& line, ProcessTimes& times) {
  // "812 (my (odd) name) R 1 ..." : the command is between the first '(' and the LAST ')'.
  const auto open = line.find('(');
  const auto close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  try {
    times.pid = std::stoi(line.substr(0, open));
  } catch (const std::exception&) {
    return false;
  }
  times.command = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 1));
  // Fields after the command, numbered as in proc(5): 3 state, 4 ppid, 14 utime, 15 stime,
  // 22 starttime.
  std::vector<std::string> fields;
  std::string field;
  while (rest >> field && fields.size() < 20) fields.push_back(field);
  if (fields.size() < 20) return false;
  try {
    times.ppid = std::stoi(fields[1]);
    times.cpu_ticks = std::stoull(fields[11]) + std::stoull(fields[12]);
    times.start_ticks = std::stoull(fields[19]);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

ProcessSnapshot snapshot_processes(const SysfsRoot& root) {
  ProcessSnapshot snapshot;
  for (const auto& entry : root.list("/proc")) {
    if (entry.empty() || !std::all_of(entry.begin(), entry.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    const auto line = root.read_line("/proc/" + entry + "/stat");
    ProcessTimes times;
    if (line && parse_process_stat(*line, times)) snapshot[times.pid] = times;
  }
  return snapshot;
}

std::set<int> process_tree(const ProcessSnapshot& snapshot, int pid) {
  std::set<int> tree{pid};
  bool grew = true;
  while (grew) {
    grew = false;
    for (const auto& [child, times] : snapshot) {
      if (tree.count(times.ppid) && tree.insert(child).second) grew = true;
    }
  }
  return tree;
}

std::vector<ProcessCpu> top_cpu_consumers(const ProcessSnapshot& before, const ProcessSnapshot& after,
                                          double seconds, const std::set<int>& exclude, std::size_t limit,
                                          double min_percent) {
  std::vector<ProcessCpu> consumers;
  if (seconds <= 0) return consumers;
  const double ticks_per_second = static_cast<double>(sysconf(_SC_CLK_TCK));
  for (const auto& [pid, now] : after) {
    if (exclude.count(pid)) continue;
    unsigned long long used = now.cpu_ticks;
    const auto was = before.find(pid);
    if (was != before.end() && was->second.start_ticks == now.start_ticks) {
      used = now.cpu_ticks >= was->second.cpu_ticks ? now.cpu_ticks - was->second.cpu_ticks : 0;
    } else {
      // Started during the interval: all its time is inside it, capped by the interval.
      used = std::min<unsigned long long>(used, static_cast<unsigned long long>(seconds * ticks_per_second));
    }
    const double percent = 100.0 * static_cast<double>(used) / ticks_per_second / seconds;
    if (percent >= min_percent) consumers.push_back({pid, now.command, percent});
  }
  std::sort(consumers.begin(), consumers.end(), [](const ProcessCpu& a, const ProcessCpu& b) {
    return a.cpu_percent != b.cpu_percent ? a.cpu_percent > b.cpu_percent : a.pid < b.pid;
  });
  if (consumers.size() > limit) consumers.resize(limit);
  return consumers;
}

std::string describe_consumers(const std::vector<ProcessCpu>& consumers) {
  if (consumers.empty()) return "none";
  std::string text;
  for (const auto& c : consumers) {
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.0f%%", c.cpu_percent);
    if (!text.empty()) text += ", ";
    text += c.command + " (pid " + std::to_string(c.pid) + ") " + percent;
  }
  return text;
}

}  // namespace pipecheck
