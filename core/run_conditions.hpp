// The conditions a probe ran under, measured by the driver around it (it sees the whole
// machine): CPU time other processes used (from /proc/stat, less the probe's own rusage and the
// driver's), steal and iowait, the load average, the CPU frequency governor and current clocks,
// the CPUs this process may use, the busiest other processes by name, and, where the driver
// filled them in (inventory/nvml_processes), other processes holding a GPU and GPU clock events.
// The judge turns a failure measured under load into `inconclusive`; compare will not call a
// change between runs taken under busy conditions.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/sysfs.hpp"
#include "core/top_processes.hpp"

namespace pipecheck {

// The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ) summed over all CPUs.
struct CpuTicks {
  unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  // Every tick the CPUs spent (guest time is already inside user and nice).
  unsigned long long total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  // Ticks some process or the kernel ran on a CPU of this machine (not idle, iowait or steal).
  unsigned long long busy() const { return user + nice + system + irq + softirq; }
};
// nullopt when the text has no "cpu " line of at least the eight fields above (kernels since 2.6.11).
std::optional<CpuTicks> parse_cpu_ticks(const std::string& text);

// A process other than pipecheck and its probe that held a GPU.
struct GpuProcess {
  int pid = 0;
  std::string command;  // from /proc/PID/comm; "" when it cannot be read (another pid namespace)
  std::string gpu;      // PCI bus id
  unsigned long long memory_bytes = 0;
};

struct RunConditions {
  double seconds = 0;                // the interval measured
  double other_cpu_percent = 0;      // CPU other processes used, % of one core (200 = two cores)
  double probe_cpu_percent = 0;      // the probe's own CPU, % of one core
  double steal_percent = 0;          // ticks the hypervisor gave to others, % of all CPUs' ticks
  double iowait_percent = 0;         // idle ticks waiting on I/O, % of all CPUs' ticks
  std::optional<double> loadavg_1m;  // at the end of the interval
  std::string governor;              // "performance", "powersave (8 CPUs)", "unknown: ..."
  bool governor_performance = false;
  std::optional<double> clock_mhz_min;  // current CPU clocks at the end (scaling_cur_freq)
  std::optional<double> clock_mhz_max;
  std::string clocks_note;              // why the clocks are unknown
  int usable_cpus = 0;                  // CPUs this process may use (affinity and cgroup quota)
  std::string cpu_allowance;            // "2 of 2 CPUs"
  std::vector<ProcessCpu> top_consumers;  // the busiest other processes, most CPU first
  std::vector<GpuProcess> gpu_processes;  // other processes holding a GPU during the probe
  std::vector<std::string> gpu_clock_events;  // "0000:17:00.0: SwThermalSlowdown|HwSlowdown"
  std::string gpu_note;                        // "" or why GPUs were not watched ("no NVML: ...")
};

// One moment of the machine, taken before and after a probe.
struct ConditionsSnapshot {
  std::chrono::steady_clock::time_point when;
  std::optional<CpuTicks> cpu;
  ProcessSnapshot processes;
  double self_cpu_seconds = 0;  // this process's own CPU so far (the driver and its threads)
};
ConditionsSnapshot take_conditions_snapshot(const SysfsRoot& root = SysfsRoot("/"));

// The CPU side of the conditions between two snapshots. `probe_cpu_seconds` is what the probe
// used (its rusage); `own_pids` are pipecheck's own processes, left out of the named consumers.
RunConditions conditions_between(const ConditionsSnapshot& before, const ConditionsSnapshot& after,
                                 double probe_cpu_seconds, const std::set<int>& own_pids,
                                 long ticks_per_second);

// Fills the machine's facts at this moment: load average, governor, clocks, CPU allowance.
void add_machine_facts(RunConditions& conditions, const SysfsRoot& root, int affinity_count);

// The governors of the CPUs that have one: "performance" when all agree, else each with its
// count; "unknown: no cpufreq in sysfs (...)" when none has one. `all_performance` is set when
// every CPU's governor is performance.
std::string read_governor(const SysfsRoot& root, bool& all_performance);
// /proc/loadavg's first figure.
std::optional<double> read_loadavg_1m(const SysfsRoot& root);

// "other processes used 187% of one core (stress-ng (pid 812) 98%, cc1plus (pid 77) 89%)";
// steal, a load average and GPU users are added when they are there.
std::string describe_load(const RunConditions& conditions);

}  // namespace pipecheck

namespace pipecheck {

// The quiet-machine check before a run: the conditions over a short window (no probe running),
// whether they were quiet, and how long the run waited for them (--wait-quiet).
struct QuietCheck {
  RunConditions conditions;
  double threshold_percent = 20;  // other processes' CPU allowed, % of one core
  bool quiet = true;
  double waited_seconds = 0;
};

// Why the machine is not ready for measuring, one line each: other processes' CPU above the
// threshold (naming the top consumers), steal, other processes on a GPU, a governor other than
// performance (or unknown). Empty when there is nothing to say.
std::vector<std::string> quiet_check_warnings(const QuietCheck& check);

}  // namespace pipecheck
