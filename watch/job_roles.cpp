// Roles from the process tree's shape: see job_roles.hpp.
#include "watch/job_roles.hpp"

#include <map>
#include <set>
#include <string>

namespace pipecheck {

namespace {

// A launcher (a shell, Python's subprocess, GNU timeout) sleeps in wait4/waitid or a signal wait
// for its child: its time off a CPU is mostly that, and it is not the training loop.
bool launcher(const ThreadTime& main) {
  const double asleep = main.waiting_pct + main.sleep_pct + main.reaping_pct;
  return main.reaping_pct > 0 && main.reaping_pct >= 0.5 * asleep;
}

}  // namespace

RolesWatch job_roles(const std::vector<ProcWatch>& procs, double saturated_pct) {
  std::map<int, std::vector<const ProcWatch*>> children;
  std::set<int> pids;
  for (const ProcWatch& p : procs) pids.insert(p.pid);
  for (const ProcWatch& p : procs) {
    if (pids.count(p.ppid) && p.ppid != p.pid) children[p.ppid].push_back(&p);
  }
  RolesWatch roles;
  double best_cpu = -1;
  for (const ProcWatch& p : procs) {
    const auto kids = children.find(p.pid);
    if (kids == children.end()) continue;
    bool has_worker = false;
    double cpu = p.cpu_pct;
    for (const ProcWatch* child : kids->second) {
      if (!children.count(child->pid)) has_worker = true;
      cpu += child->cpu_pct;
    }
    if (!has_worker || launcher(p.main_thread)) continue;
    ++roles.trainers;
    if (cpu <= best_cpu) continue;
    best_cpu = cpu;
    roles.found = true;
    roles.trainer_pid = p.pid;
    roles.trainer = p.comm + ":" + std::to_string(p.pid);
    roles.trainer_cpu_pct = p.cpu_pct;
    roles.loop = p.main_thread;
    roles.workers = static_cast<int>(kids->second.size());
    roles.workers_cpu_pct = 0;
    roles.workers_saturated = 0;
    roles.busiest_worker.clear();
    roles.busiest_worker_demand_pct = -1;
    double demand_sum = 0;
    for (const ProcWatch* child : kids->second) {
      roles.workers_cpu_pct += child->cpu_pct;
      demand_sum += child->top_thread_demand_pct;
      if (child->top_thread_demand_pct >= saturated_pct) ++roles.workers_saturated;
      if (child->top_thread_demand_pct > roles.busiest_worker_demand_pct) {
        roles.busiest_worker_demand_pct = child->top_thread_demand_pct;
        roles.busiest_worker = child->top_thread.empty() ? child->comm + ":" + std::to_string(child->pid) : child->top_thread;
      }
    }
    roles.workers_demand_pct = demand_sum / static_cast<double>(roles.workers);
  }
  return roles;
}

}  // namespace pipecheck
