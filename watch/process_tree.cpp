// Sampling a process tree from /proc: who is in it, and how much CPU and disk each part uses.
#include "watch/process_tree.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <set>

#include "watch/proc_files.hpp"

namespace pipecheck {

namespace {

std::uint64_t to_u64(std::string_view text) {
  std::uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// Whitespace-separated fields of a line.
std::vector<std::string_view> fields_of(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n' && text[i] != '\t') ++i;
    if (i > start) fields.push_back(text.substr(start, i - start));
  }
  return fields;
}

double percent(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

}  // namespace

std::optional<TaskStat> parse_task_stat(std::string_view text) {
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  TaskStat stat;
  stat.pid = static_cast<int>(to_u64(text.substr(0, open)));
  stat.comm = std::string(text.substr(open + 1, close - open - 1));
  // After the comm: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17) ... starttime(22).
  const auto rest = fields_of(text.substr(close + 1));
  if (rest.size() < 20 || rest[0].size() != 1) return std::nullopt;
  stat.state = rest[0][0];
  stat.ppid = static_cast<int>(to_u64(rest[1]));
  stat.utime = to_u64(rest[11]);
  stat.stime = to_u64(rest[12]);
  stat.cutime = to_u64(rest[13]);
  stat.cstime = to_u64(rest[14]);
  stat.starttime = to_u64(rest[19]);
  return stat;
}

std::optional<SchedStat> parse_schedstat(std::string_view text) {
  const auto fields = fields_of(text);
  if (fields.size() < 2) return std::nullopt;
  return SchedStat{to_u64(fields[0]), to_u64(fields[1])};
}

std::optional<std::uint64_t> parse_io_read_bytes(std::string_view text) {
  constexpr std::string_view key = "read_bytes:";
  std::size_t at = 0;
  while ((at = text.find(key, at)) != std::string_view::npos) {
    // "read_bytes:" must start a line ("cancelled_write_bytes" does not match, but be exact).
    if (at == 0 || text[at - 1] == '\n') {
      const auto fields = fields_of(text.substr(at + key.size(), 32));
      if (!fields.empty()) return to_u64(fields[0]);
    }
    at += key.size();
  }
  return std::nullopt;
}

std::string sanitize_name(std::string_view name) {
  std::string clean;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    const bool bad = u < 0x20 || u == 0x7f || c == ',' || c == '|' || c == '"' || c == '\'' || c == '\\';
    clean += bad ? '_' : c;
  }
  return clean;
}

bool process_alive(const SysfsRoot& root, int pid, std::uint64_t* starttime) {
  const auto text = read_proc_file(root, "/proc/" + std::to_string(pid) + "/stat");
  const auto stat = text ? parse_task_stat(*text) : std::nullopt;
  if (!stat || stat->state == 'Z' || stat->state == 'X' || stat->state == 'x') return false;
  if (starttime) *starttime = stat->starttime;
  return true;
}

std::vector<int> process_tree_pids(const SysfsRoot& root, int root_pid) {
  if (!process_alive(root, root_pid)) return {};
  // One pass over /proc for every parent link, then a walk down from the root.
  std::multimap<int, int> children;
  for (int pid : list_numeric_entries(root, "/proc")) {
    const auto text = read_proc_file(root, "/proc/" + std::to_string(pid) + "/stat");
    const auto stat = text ? parse_task_stat(*text) : std::nullopt;
    if (stat && pid != root_pid) children.emplace(stat->ppid, pid);
  }
  std::vector<int> tree;
  std::deque<int> queue{root_pid};
  std::set<int> seen;
  while (!queue.empty()) {
    const int pid = queue.front();
    queue.pop_front();
    if (!seen.insert(pid).second) continue;
    tree.push_back(pid);
    const auto [first, last] = children.equal_range(pid);
    for (auto it = first; it != last; ++it) queue.push_back(it->second);
  }
  return tree;
}

ProcessTreeSampler::ProcessTreeSampler(SysfsRoot root, int root_pid, double busy_demand_pct)
    : root_(std::move(root)), root_pid_(root_pid), busy_demand_pct_(busy_demand_pct) {
  const long ticks = sysconf(_SC_CLK_TCK);
  ticks_per_s_ = ticks > 0 ? static_cast<double>(ticks) : 100.0;
  process_alive(root_, root_pid_, &root_starttime_);
}

void ProcessTreeSampler::sample_threads(int pid, double dt_s, bool priming, ProcWatch& proc) {
  const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  for (int tid : list_numeric_entries(root_, task_dir)) {
    const std::string dir = task_dir + "/" + std::to_string(tid);
    const auto text = read_proc_file(root_, dir + "/stat");
    const auto stat = text ? parse_task_stat(*text) : std::nullopt;
    if (!stat) continue;
    const auto sched_text = read_proc_file(root_, dir + "/schedstat");
    const auto sched = sched_text ? parse_schedstat(*sched_text) : std::nullopt;
    ++proc.threads;
    const std::uint64_t ticks = stat->utime + stat->stime;
    const auto found = threads_.find(tid);
    const bool known = found != threads_.end() && found->second.pid == pid;
    ThreadState& state = threads_[tid];
    // A thread first seen after the first sample was born within the interval: all of its
    // time counts. One seen at the first sample may be older than the watch: it only primes.
    const std::uint64_t base_ticks = known ? state.ticks : 0;
    const SchedStat base_sched = known && state.sched ? *state.sched : SchedStat{};
    state.pid = pid;
    state.comm = sanitize_name(stat->comm);
    state.ticks = ticks;
    state.sched = sched;
    if (priming || dt_s <= 0) continue;
    const double cpu_s = static_cast<double>(ticks - std::min(ticks, base_ticks)) / ticks_per_s_;
    state.cpu_s += cpu_s;
    const double cpu_pct = std::min(100.0, percent(cpu_s, dt_s));
    double demand_pct = cpu_pct;
    if (sched) {
      const double busy_ns = static_cast<double>(sched->run_ns - std::min(sched->run_ns, base_sched.run_ns) +
                                                 sched->wait_ns - std::min(sched->wait_ns, base_sched.wait_ns));
      demand_pct = std::min(100.0, percent(busy_ns / 1e9, dt_s));
    }
    if (demand_pct >= busy_demand_pct_) ++proc.busy_threads;
    if (demand_pct > proc.top_thread_demand_pct ||
        (demand_pct == proc.top_thread_demand_pct && cpu_pct > proc.top_thread_pct)) {
      proc.top_thread_demand_pct = demand_pct;
      proc.top_thread_pct = cpu_pct;
      proc.top_thread = state.comm + ":" + std::to_string(tid);
    }
  }
}

ProcWatch ProcessTreeSampler::sample_process(int pid, double dt_s, bool priming, Totals& totals) {
  ProcWatch proc;
  proc.pid = pid;
  const std::string dir = "/proc/" + std::to_string(pid);
  const auto text = read_proc_file(root_, dir + "/stat");
  const auto stat = text ? parse_task_stat(*text) : std::nullopt;
  if (!stat) return proc;
  const auto io_text = read_proc_file(root_, dir + "/io");
  const auto read_bytes = io_text ? parse_io_read_bytes(*io_text) : std::nullopt;
  const bool known = processes_.count(pid) > 0;
  ProcessState& state = processes_[pid];
  const std::uint64_t ticks = stat->utime + stat->stime;
  const std::uint64_t base_ticks = known ? state.ticks : 0;
  const std::optional<std::uint64_t> base_read = known ? state.read_bytes : std::optional<std::uint64_t>(0);
  state.ppid = stat->ppid;
  state.comm = sanitize_name(stat->comm);
  state.ticks = ticks;
  state.read_bytes = read_bytes;
  if (read_bytes && !state.first_read_bytes) state.first_read_bytes = known || priming ? *read_bytes : 0;
  proc.comm = state.comm;
  // The tree's totals include what each live process reaped from its children (cutime, and
  // the read_bytes the kernel folds into the parent on wait), so a short-lived worker's work
  // is counted once: in itself while it lives, in its parent after.
  totals.ticks += ticks + stat->cutime + stat->cstime;
  if (read_bytes) {
    totals.read_bytes += *read_bytes;
    totals.read_known = true;
  }
  sample_threads(pid, dt_s, priming, proc);
  state.max_threads = std::max(state.max_threads, proc.threads);
  if (priming || dt_s <= 0) return proc;
  const double cpu_s = static_cast<double>(ticks - std::min(ticks, base_ticks)) / ticks_per_s_;
  state.cpu_s += cpu_s;
  proc.cpu_s = state.cpu_s;
  proc.cpu_pct = percent(cpu_s, dt_s);
  if (read_bytes && base_read) {
    proc.read_mbs = static_cast<double>(*read_bytes - std::min(*read_bytes, *base_read)) / 1e6 / dt_s;
  }
  return proc;
}

std::vector<int> ProcessTreeSampler::current_tree() {
  const std::vector<int> live = list_numeric_entries(root_, "/proc");
  std::map<int, int> parents;
  for (int pid : live) {
    const auto known = parent_of_.find(pid);
    const auto own = processes_.find(pid);
    if (own != processes_.end()) {
      parents[pid] = own->second.ppid;  // re-read each sample by sample_process
    } else if (known != parent_of_.end()) {
      parents[pid] = known->second;
    } else {
      const auto text = read_proc_file(root_, "/proc/" + std::to_string(pid) + "/stat");
      const auto stat = text ? parse_task_stat(*text) : std::nullopt;
      parents[pid] = stat ? stat->ppid : -1;
    }
  }
  parent_of_ = std::move(parents);  // pids gone from /proc leave the map
  std::multimap<int, int> children;
  for (const auto& [pid, ppid] : parent_of_) {
    if (pid != root_pid_) children.emplace(ppid, pid);
  }
  std::vector<int> tree;
  std::deque<int> queue{root_pid_};
  std::set<int> seen;
  while (!queue.empty()) {
    const int pid = queue.front();
    queue.pop_front();
    if (!seen.insert(pid).second) continue;
    tree.push_back(pid);
    const auto [first, last] = children.equal_range(pid);
    for (auto it = first; it != last; ++it) queue.push_back(it->second);
  }
  return tree;
}

ProcessTreeReading ProcessTreeSampler::sample(Clock::time_point now) {
  ProcessTreeReading reading;
  std::uint64_t starttime = 0;
  reading.root_alive = process_alive(root_, root_pid_, &starttime) && starttime == root_starttime_;
  if (!reading.root_alive) return reading;
  const bool priming = !last_time_;
  const double dt_s = last_time_ ? std::chrono::duration<double>(now - *last_time_).count() : 0.0;
  last_time_ = now;
  reading.pids = current_tree();
  Totals totals;
  JobWatch& job = reading.job;
  for (int pid : reading.pids) {
    ProcWatch proc = sample_process(pid, dt_s, priming, totals);
    job.threads += proc.threads;
    job.busy_threads += proc.busy_threads;
    if (proc.busy_threads > 0 || proc.cpu_pct >= busy_demand_pct_) ++job.busy_processes;
    if (proc.top_thread_demand_pct > job.top_thread_demand_pct ||
        (proc.top_thread_demand_pct == job.top_thread_demand_pct && proc.top_thread_pct > job.top_thread_pct)) {
      job.top_thread_demand_pct = proc.top_thread_demand_pct;
      job.top_thread_pct = proc.top_thread_pct;
      job.top_thread = proc.top_thread;
    }
    reading.procs.push_back(std::move(proc));
  }
  job.processes = static_cast<int>(reading.procs.size());
  if (last_totals_ && dt_s > 0) {
    // A process that leaves the tree unreaped (re-parented to init) takes its share with it:
    // the sum may fall, and a fall is not negative work.
    const double cpu_s = static_cast<double>(totals.ticks - std::min(totals.ticks, last_totals_->ticks)) / ticks_per_s_;
    job_cpu_s_ += cpu_s;
    job.cpu_pct = percent(cpu_s, dt_s);
    if (totals.read_known && last_totals_->read_known) {
      job.read_mbs = static_cast<double>(totals.read_bytes - std::min(totals.read_bytes, last_totals_->read_bytes)) /
                     1e6 / dt_s;
    }
  }
  job.cpu_s = job_cpu_s_;
  last_totals_ = totals;
  return reading;
}

std::vector<ThreadTotal> ProcessTreeSampler::top_threads(std::size_t count) const {
  std::vector<ThreadTotal> all;
  for (const auto& [tid, state] : threads_) all.push_back({tid, state.pid, state.comm, state.cpu_s});
  std::stable_sort(all.begin(), all.end(), [](const ThreadTotal& a, const ThreadTotal& b) { return a.cpu_s > b.cpu_s; });
  if (all.size() > count) all.resize(count);
  return all;
}

std::vector<ProcessTotal> ProcessTreeSampler::processes() const {
  std::vector<ProcessTotal> all;
  for (const auto& [pid, state] : processes_) {
    ProcessTotal total{pid, state.ppid, state.comm, state.cpu_s, state.max_threads, std::nullopt};
    if (state.read_bytes && state.first_read_bytes) {
      total.read_bytes = static_cast<double>(*state.read_bytes - std::min(*state.read_bytes, *state.first_read_bytes));
    }
    all.push_back(total);
  }
  std::stable_sort(all.begin(), all.end(), [](const ProcessTotal& a, const ProcessTotal& b) { return a.cpu_s > b.cpu_s; });
  return all;
}

}  // namespace pipecheck
