// Conditions around a probe from /proc/stat, /proc/loadavg, cpufreq and the process table.
#include "core/run_conditions.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/cpu_allowance.hpp"

namespace pipecheck {

namespace {

std::string one_decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", value < 10 ? 1 : 0, value);
  return text;
}

double self_cpu_seconds() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// cpuN folders of the machine, N a number.
std::vector<std::string> cpu_folders(const SysfsRoot& root) {
  std::vector<std::string> cpus;
  for (const auto& name : root.list("/sys/devices/system/cpu")) {
    if (name.size() > 3 && name.rfind("cpu", 0) == 0 && name.find_first_not_of("0123456789", 3) == std::string::npos) {
      cpus.push_back("/sys/devices/system/cpu/" + name);
    }
  }
  return cpus;
}

void read_clocks(RunConditions& conditions, const SysfsRoot& root) {
  for (const auto& cpu : cpu_folders(root)) {
    const auto khz = root.read_int(cpu + "/cpufreq/scaling_cur_freq");
    if (!khz || *khz <= 0) continue;
    const double mhz = static_cast<double>(*khz) / 1000.0;
    conditions.clock_mhz_min = std::min(conditions.clock_mhz_min.value_or(mhz), mhz);
    conditions.clock_mhz_max = std::max(conditions.clock_mhz_max.value_or(mhz), mhz);
  }
  if (!conditions.clock_mhz_min) conditions.clocks_note = "unknown: no cpufreq scaling_cur_freq in sysfs";
}

}  // namespace

std::optional<CpuTicks> parse_cpu_ticks(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("cpu ", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    CpuTicks t;
    if (!(fields >> t.user >> t.nice >> t.system >> t.idle >> t.iowait >> t.irq >> t.softirq >> t.steal)) {
      return std::nullopt;
    }
    return t;
  }
  return std::nullopt;
}

ConditionsSnapshot take_conditions_snapshot(const SysfsRoot& root) {
  ConditionsSnapshot snapshot;
  snapshot.when = std::chrono::steady_clock::now();
  if (const auto text = root.read("/proc/stat")) snapshot.cpu = parse_cpu_ticks(*text);
  snapshot.processes = snapshot_processes(root);
  snapshot.self_cpu_seconds = self_cpu_seconds();
  return snapshot;
}

RunConditions conditions_between(const ConditionsSnapshot& before, const ConditionsSnapshot& after,
                                 double probe_cpu_seconds, const std::set<int>& own_pids,
                                 long ticks_per_second) {
  RunConditions conditions;
  conditions.seconds = std::chrono::duration<double>(after.when - before.when).count();
  if (conditions.seconds <= 0) return conditions;
  conditions.probe_cpu_percent = 100.0 * probe_cpu_seconds / conditions.seconds;
  if (before.cpu && after.cpu && ticks_per_second > 0 && after.cpu->total() >= before.cpu->total()) {
    const CpuTicks& a = *before.cpu;
    const CpuTicks& b = *after.cpu;
    const double total = static_cast<double>(b.total() - a.total());
    const double busy_seconds = static_cast<double>(b.busy() - a.busy()) / static_cast<double>(ticks_per_second);
    // Ticks are counted in whole 1/HZ steps per CPU: what is left after our own time may be a
    // few ticks below zero.
    const double own_seconds = probe_cpu_seconds + (after.self_cpu_seconds - before.self_cpu_seconds);
    conditions.other_cpu_percent = std::max(0.0, 100.0 * (busy_seconds - own_seconds) / conditions.seconds);
    if (total > 0) {
      conditions.steal_percent = 100.0 * static_cast<double>(b.steal - a.steal) / total;
      conditions.iowait_percent = 100.0 * static_cast<double>(b.iowait - a.iowait) / total;
    }
  }
  conditions.top_consumers =
      top_cpu_consumers(before.processes, after.processes, conditions.seconds, own_pids, 5, 1.0);
  return conditions;
}

std::string read_governor(const SysfsRoot& root, bool& all_performance) {
  std::map<std::string, int> counts;
  for (const auto& cpu : cpu_folders(root)) {
    if (const auto governor = root.read_line(cpu + "/cpufreq/scaling_governor")) ++counts[*governor];
  }
  all_performance = counts.size() == 1 && counts.begin()->first == "performance";
  if (counts.empty()) {
    return "unknown: no cpufreq governor in sysfs (a virtual machine, or a kernel without cpufreq)";
  }
  if (counts.size() == 1) return counts.begin()->first;
  std::string text;
  for (const auto& [name, count] : counts) {
    text += (text.empty() ? "" : ", ") + name + " (" + std::to_string(count) + (count == 1 ? " CPU)" : " CPUs)");
  }
  return text;
}

std::optional<double> read_loadavg_1m(const SysfsRoot& root) {
  const auto line = root.read_line("/proc/loadavg");
  if (!line) return std::nullopt;
  try {
    return std::stod(*line);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void add_machine_facts(RunConditions& conditions, const SysfsRoot& root, int affinity_count) {
  conditions.loadavg_1m = read_loadavg_1m(root);
  conditions.governor = read_governor(root, conditions.governor_performance);
  read_clocks(conditions, root);
  const CpuAllowance allowance = read_cpu_allowance(root, affinity_count);
  conditions.usable_cpus = allowance.usable();
  conditions.cpu_allowance = allowance.describe();
}

std::string describe_load(const RunConditions& c) {
  std::string text = "other processes used " + one_decimal(c.other_cpu_percent) + "% of one core";
  if (!c.top_consumers.empty()) text += " (" + describe_consumers(c.top_consumers) + ")";
  if (c.steal_percent >= 1) text += "; steal " + one_decimal(c.steal_percent) + "% of the CPUs' time";
  if (c.loadavg_1m) {
    text += "; load average " + one_decimal(*c.loadavg_1m);
    if (c.usable_cpus > 0) text += " on " + std::to_string(c.usable_cpus) + (c.usable_cpus == 1 ? " CPU" : " CPUs");
  }
  for (const auto& p : c.gpu_processes) {
    const std::string pid = "pid " + std::to_string(p.pid);
    text += "; GPU " + p.gpu + " held by " + (p.command.empty() ? pid : p.command + " (" + pid + ")");
  }
  return text;
}

}  // namespace pipecheck

namespace pipecheck {

std::vector<std::string> quiet_check_warnings(const QuietCheck& check) {
  const RunConditions& c = check.conditions;
  std::vector<std::string> lines;
  if (c.other_cpu_percent > check.threshold_percent) {
    std::string line = "the machine is busy: other processes used " + one_decimal(c.other_cpu_percent) +
                       "% of one core over " + one_decimal(c.seconds) + " s (more than " +
                       one_decimal(check.threshold_percent) + "%)";
    if (!c.top_consumers.empty()) line += ": " + describe_consumers(c.top_consumers);
    if (check.waited_seconds > 0) line += "; still so after waiting " + one_decimal(check.waited_seconds) + " s";
    lines.push_back(line + "; measurements it slows are judged inconclusive");
  }
  if (c.steal_percent >= 5) {
    lines.push_back("the hypervisor gave " + one_decimal(c.steal_percent) +
                    "% of the CPUs' time to other guests (steal): CPU figures move with it");
  }
  for (const auto& p : c.gpu_processes) {
    const std::string who = p.command.empty() ? "pid " + std::to_string(p.pid) : p.command + " (pid " + std::to_string(p.pid) + ")";
    lines.push_back("GPU " + p.gpu + " is in use by " + who + ": GPU figures measured beside it are judged inconclusive");
  }
  if (c.governor.rfind("unknown", 0) == 0) {
    lines.push_back("CPU frequency governor " + c.governor + ": clocks cannot be checked");
  } else if (!c.governor.empty() && !c.governor_performance) {
    lines.push_back("CPU frequency governor is " + c.governor +
                    ", not performance: clocks ramp with load and CPU figures move with them "
                    "(cpupower frequency-set -g performance)");
  }
  return lines;
}

}  // namespace pipecheck
