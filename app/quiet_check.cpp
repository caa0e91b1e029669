// The quiet-machine check before a run.
#include "app/quiet_check.hpp"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ostream>
#include <thread>

namespace pipecheck {

namespace {

int affinity_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

std::string command_of(int pid) {
  const auto comm = SysfsRoot("/").read_line("/proc/" + std::to_string(pid) + "/comm");
  return comm ? *comm : "";
}

// One window: the machine's CPU with nothing of ours running, and who holds a GPU now.
RunConditions look(double window_seconds, GpuConditionsWatch& gpus, const std::atomic<bool>& stop) {
  const ConditionsSnapshot before = take_conditions_snapshot();
  const auto until = before.when + std::chrono::duration<double>(window_seconds);
  while (!stop.load() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const ConditionsSnapshot after = take_conditions_snapshot();
  std::set<int> own = process_tree(after.processes, static_cast<int>(getpid()));
  RunConditions conditions = conditions_between(before, after, 0.0, own, sysconf(_SC_CLK_TCK));
  add_machine_facts(conditions, SysfsRoot("/"), affinity_count());
  if (gpus.watching()) merge_gpu_observations(conditions, gpus.observe(), command_of);
  conditions.gpu_note = gpus.note();
  return conditions;
}

}  // namespace

QuietCheck check_machine_quiet(const QuietCheckOptions& options, GpuConditionsWatch& gpus,
                               const std::atomic<bool>& stop, std::ostream& err) {
  QuietCheck check;
  check.threshold_percent = options.threshold_percent;
  const auto start = std::chrono::steady_clock::now();
  bool said_waiting = false;
  while (true) {
    // Waited: the time before this look began (0 for the first).
    check.waited_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!said_waiting) check.waited_seconds = 0;
    check.conditions = look(options.window_seconds, gpus, stop);
    check.quiet = check.conditions.other_cpu_percent <= options.threshold_percent && check.conditions.gpu_processes.empty();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (check.quiet || stop.load() || elapsed + options.window_seconds > options.wait_seconds) break;
    if (!said_waiting) {
      err << "pipecheck: waiting up to " << std::lround(options.wait_seconds) << " s for the machine to calm down ("
          << describe_load(check.conditions) << ")\n";
      said_waiting = true;
    }
  }
  for (const auto& line : quiet_check_warnings(check)) err << "pipecheck: " << line << "\n";
  if (said_waiting && check.quiet) {
    err << "pipecheck: quiet after " << std::lround(check.waited_seconds) << " s\n";
  }
  return check;
}

}  // namespace pipecheck
