// Sampling a process tree from /proc: who is in it, and how much CPU and disk each part uses.
#include "watch/process_tree.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <deque>
#include <set>
#include <utility>

#include "core/text_escape.hpp"
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

template <typename Total>
bool more_cpu(const Total& a, const Total& b) {
  return a.cpu_s > b.cpu_s;
}

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
  if (rest.size() > 39) stat.blkio_ticks = to_u64(rest[39]);  // field 42
  return stat;
}

std::string describe(BlockedSource source, double looks_per_s, bool schedstat) {
  if (source == BlockedSource::delay_accounting) return "delay accounting (delayacct_blkio_ticks)";
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.0f", looks_per_s);
  const std::string looked = std::string(" looked at ") + rate + " times a second";
  if (!schedstat) return "thread states (D)" + looked;
  return "time off a CPU (schedstat) split by thread states (D: I/O, S: other waits)" + looked;
}

bool delay_accounting_on(const SysfsRoot& root) {
  const auto text = read_proc_file(root, "/proc/sys/kernel/task_delayacct");
  return text && !text->empty() && (*text)[0] == '1';
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
  // The one policy for names (core/text_escape.hpp): control characters and invalid UTF-8 as
  // \xHH, so two processes never look alike; commas and quotes stay (watch.csv quotes them,
  // RFC 4180; the other writers escape them).
  return escape_name(name);
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

std::vector<ChildProcess> children_of(const SysfsRoot& root, int parent) {
  std::vector<ChildProcess> children;
  for (int pid : list_numeric_entries(root, "/proc")) {
    const auto text = read_proc_file(root, "/proc/" + std::to_string(pid) + "/stat");
    const auto stat = text ? parse_task_stat(*text) : std::nullopt;
    if (stat && stat->ppid == parent) children.push_back({pid, stat->starttime});
  }
  return children;
}

ProcessTreeSampler::ProcessTreeSampler(SysfsRoot root, int root_pid, double busy_demand_pct, int adopter_pid,
                                       const std::vector<ChildProcess>& adopters_own_children)
    : root_(std::move(root)), root_pid_(root_pid), adopter_pid_(adopter_pid), busy_demand_pct_(busy_demand_pct) {
  const long ticks = sysconf(_SC_CLK_TCK);
  ticks_per_s_ = ticks > 0 ? static_cast<double>(ticks) : 100.0;
  process_alive(root_, root_pid_, &root_starttime_);
  // Known from the start and never adoptable, however close their start to the job's (a start
  // time counts in clock ticks of 10 ms); everything else the adopter gets later may be an
  // orphan of the job.
  for (const ChildProcess& child : adopters_own_children) {
    if (child.pid != root_pid_) parent_of_[child.pid] = {adopter_pid_, child.starttime, false, false};
  }
}

// A thread's time blocked on I/O in an interval of dt_s, from thread-state looks. With the
// scheduler's own clock (schedstat: on a CPU + waiting for one), the time off a CPU is exact and
// the looks only split it between D (I/O) and S (anything else): a reader whose every sleep is
// a read counts all of it, however few looks caught it asleep. Looks are few (3 an interval at
// 0.25 s) and, on a VM, see a reader of 60 us reads in D far less often than it is off a CPU
// (21% of looks against 59% beside a busy loop): an interval whose looks all found it running
// takes the split of its earlier looks. Without schedstat, the share of looks in D.
double blocked_seconds(const Looks& looks, const Looks& earlier, std::optional<double> busy_s, double dt_s) {
  if (!busy_s) return looks.total > 0 ? dt_s * looks.blocked / looks.total : 0.0;
  const Looks& split = looks.asleep() > 0 ? looks : earlier;
  if (split.asleep() == 0) return 0.0;  // never seen asleep: what kept it off a CPU is unknown
  const double off_cpu_s = std::max(0.0, dt_s - *busy_s);
  return off_cpu_s * split.blocked / split.asleep();
}

SleepKind sleep_kind_of(std::string_view syscall_text) {
  const auto fields = fields_of(syscall_text.substr(0, 32));
  if (fields.empty() || fields[0] == "running") return SleepKind::unknown;
  long number = -1;
  if (std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), number).ec != std::errc{}) {
    return SleepKind::unknown;
  }
  // This machine's numbers: the watch reads processes of its own architecture.
  if (number == SYS_clock_nanosleep) return SleepKind::timed;
#ifdef SYS_nanosleep
  if (number == SYS_nanosleep) return SleepKind::timed;
#endif
  // A launcher waits for its child to end: in wait4/waitid (a shell, Python's subprocess), or for
  // the SIGCHLD in a signal wait (GNU timeout's sigsuspend). A loop waiting on its workers'
  // data sleeps in poll, read, futex, never in these.
  if (number == SYS_wait4 || number == SYS_waitid || number == SYS_rt_sigsuspend || number == SYS_rt_sigtimedwait) {
    return SleepKind::reaping;
  }
#ifdef SYS_pause
  if (number == SYS_pause) return SleepKind::reaping;
#endif
  return SleepKind::other;
}

ThreadTime thread_time(const Looks& looks, const Looks& earlier, std::optional<double> busy_s, double dt_s) {
  ThreadTime time;
  if (dt_s <= 0) return time;
  const Looks& split = busy_s && looks.asleep() == 0 ? earlier : looks;
  double off_s = 0;
  if (busy_s) {
    off_s = std::max(0.0, dt_s - *busy_s);
  } else if (split.total > 0) {
    off_s = dt_s * split.asleep() / split.total;  // without schedstat: the share of looks asleep
  }
  if (split.asleep() == 0 || off_s <= 0) return time;
  const double per_look = off_s / split.asleep();
  time.io_pct = percent(per_look * split.blocked, dt_s);
  time.sleep_pct = percent(per_look * split.timed, dt_s);
  time.reaping_pct = percent(per_look * split.reaping, dt_s);
  time.waiting_pct = std::max(0.0, percent(off_s, dt_s) - time.io_pct - time.sleep_pct - time.reaping_pct);
  time.syscalls_read = split.classified > 0;
  return time;
}

SleepKind ProcessTreeSampler::sleep_kind(int pid, int tid, char state) const {
  if (state != 'S' || tid != pid || !parents_.count(pid)) return SleepKind::unknown;
  const auto text =
      read_proc_file(root_, "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/syscall");
  return text ? sleep_kind_of(*text) : SleepKind::unknown;
}

void ProcessTreeSampler::sample_threads(int pid, double dt_s, bool priming, ProcWatch& proc, double& top_blocked_pct,
                                        std::string& top_blocked) {
  const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  for (int tid : list_numeric_entries(root_, task_dir)) {
    const std::string dir = task_dir + "/" + std::to_string(tid);
    const auto text = read_proc_file(root_, dir + "/stat");
    const auto stat = text ? parse_task_stat(*text) : std::nullopt;
    if (!stat) continue;
    const auto sched_text = read_proc_file(root_, dir + "/schedstat");
    const auto sched = sched_text ? parse_schedstat(*sched_text) : std::nullopt;
    if (sched) schedstat_seen_ = true;
    ++proc.threads;
    const std::uint64_t ticks = stat->utime + stat->stime;
    const auto [found, added] = threads_.try_emplace(Key{tid, stat->starttime});
    ThreadState& state = found->second;
    // A thread first seen after the first sample was born within the interval: all of its
    // time counts. One seen at the first sample may be older than the watch: it only primes.
    const std::uint64_t base_ticks = added ? 0 : state.ticks;
    const SchedStat base_sched = !added && state.sched ? *state.sched : SchedStat{};
    const std::optional<std::uint64_t> base_blkio = added ? std::optional<std::uint64_t>(0) : state.blkio_ticks;
    state.pid = pid;
    state.comm = sanitize_name(stat->comm);
    state.ticks = ticks;
    state.sched = sched;
    state.blkio_ticks = stat->blkio_ticks;
    state.seen = samples_;
    // This sample's own look at the state, with those taken since the last one.
    state.looks.count(stat->state, sleep_kind(pid, tid, stat->state));
    const Looks looks = std::exchange(state.looks, Looks{});
    const Looks earlier = state.earlier_looks;
    state.earlier_looks.add(looks);
    if (priming || dt_s <= 0) continue;
    const double cpu_s = static_cast<double>(ticks - std::min(ticks, base_ticks)) / ticks_per_s_;
    state.cpu_s += cpu_s;
    const double cpu_pct = std::min(100.0, percent(cpu_s, dt_s));
    double demand_pct = cpu_pct;
    std::optional<double> busy_s;  // on a CPU or waiting for one, by the scheduler's own clock
    if (sched) {
      const double wait_ns = static_cast<double>(sched->wait_ns - std::min(sched->wait_ns, base_sched.wait_ns));
      const double busy_ns = static_cast<double>(sched->run_ns - std::min(sched->run_ns, base_sched.run_ns)) + wait_ns;
      demand_pct = std::min(100.0, percent(busy_ns / 1e9, dt_s));
      proc.run_wait_pct += std::min(100.0, percent(wait_ns / 1e9, dt_s));
      if (!added) busy_s = busy_ns / 1e9;  // a thread born in the interval lived less than dt_s
    }
    double blocked_s = blocked_seconds(looks, earlier, busy_s, dt_s);
    if (source_ == BlockedSource::delay_accounting) {
      blocked_s = stat->blkio_ticks && base_blkio
                      ? static_cast<double>(*stat->blkio_ticks - std::min(*stat->blkio_ticks, *base_blkio)) / ticks_per_s_
                      : 0.0;
    }
    state.blocked_s += blocked_s;
    const double blocked_pct = std::min(100.0, percent(blocked_s, dt_s));
    proc.io_blocked_pct = proc.io_blocked_pct.value_or(0) + blocked_pct;
    if (blocked_pct > top_blocked_pct) {
      top_blocked_pct = blocked_pct;
      top_blocked = state.comm + ":" + std::to_string(tid);
    }
    if (tid == pid) {
      proc.main_thread = thread_time(looks, earlier, busy_s, dt_s);
      proc.main_thread.name = state.comm + ":" + std::to_string(tid);
      proc.main_thread.cpu_pct = cpu_pct;
      proc.main_thread.demand_pct = demand_pct;
      proc.main_thread.run_wait_pct = std::max(0.0, demand_pct - cpu_pct);
      if (sched) {
        const double wait_ns = static_cast<double>(sched->wait_ns - std::min(sched->wait_ns, base_sched.wait_ns));
        proc.main_thread.run_wait_pct = std::min(100.0, percent(wait_ns / 1e9, dt_s));
      }
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

ProcWatch ProcessTreeSampler::sample_process(const Member& member, double dt_s, bool priming, Totals& totals,
                                             double& top_blocked_pct, std::string& top_blocked) {
  ProcWatch proc;
  proc.pid = member.pid;
  const std::string dir = "/proc/" + std::to_string(member.pid);
  const auto text = read_proc_file(root_, dir + "/stat");
  const auto stat = text ? parse_task_stat(*text) : std::nullopt;
  // Gone since the tree was read, or its pid already reused by another process.
  if (!stat || stat->starttime != member.starttime) return proc;
  const auto io_text = read_proc_file(root_, dir + "/io");
  const auto read_bytes = io_text ? parse_io_read_bytes(*io_text) : std::nullopt;
  const auto [found, added] = processes_.try_emplace(Key{member.pid, member.starttime});
  ProcessState& state = found->second;
  const std::uint64_t ticks = stat->utime + stat->stime;
  const std::uint64_t base_ticks = added ? 0 : state.ticks;
  const std::optional<std::uint64_t> base_read = added ? std::optional<std::uint64_t>(0) : state.read_bytes;
  state.ppid = stat->ppid;
  state.comm = sanitize_name(stat->comm);
  state.ticks = ticks;
  state.job_ticks = ticks + stat->cutime + stat->cstime;
  state.read_bytes = read_bytes;
  state.seen = samples_;
  if (read_bytes && !state.first_read_bytes) state.first_read_bytes = !added || priming ? *read_bytes : 0;
  proc.comm = state.comm;
  proc.ppid = stat->ppid;
  // The job's sums take what each process reaped from its children too (cutime, and the
  // read_bytes the kernel folds into the parent on wait): see count_job.
  totals.ticks += state.job_ticks;
  if (read_bytes) {
    totals.read_bytes += *read_bytes;
    totals.read_known = true;
  }
  sample_threads(member.pid, dt_s, priming, proc, top_blocked_pct, top_blocked);
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

std::vector<ProcessTreeSampler::Member> ProcessTreeSampler::current_tree() {
  std::map<int, ParentLink> links;
  for (int pid : list_numeric_entries(root_, "/proc")) {
    // A process outside the tree can join it only as a new process (a parent changes only to
    // init or a subreaper above it), so its cached link stands. The tree's own links are
    // re-read: its pid may have been reused, or the process re-parented out of the tree. (A
    // pid outside the tree reused by a new child of the job within one interval is missed; its
    // CPU still reaches the job through its parent's cutime when it ends.)
    const auto cached = parent_of_.find(pid);
    if (cached != parent_of_.end() && !cached->second.in_tree) {
      links[pid] = cached->second;
      continue;
    }
    const auto text = read_proc_file(root_, "/proc/" + std::to_string(pid) + "/stat");
    const auto stat = text ? parse_task_stat(*text) : std::nullopt;
    if (!stat) continue;
    const bool known = cached != parent_of_.end() && cached->second.starttime == stat->starttime;
    const bool adoptable = known ? cached->second.in_tree : stat->starttime >= root_starttime_;
    links[pid] = {stat->ppid, stat->starttime, false, adoptable};
  }
  parent_of_ = std::move(links);  // pids gone from /proc leave the map
  return walk_tree();
}

// The root and its descendants by parent_of_, parents before children, marked in_tree.
std::vector<ProcessTreeSampler::Member> ProcessTreeSampler::walk_tree() {
  std::multimap<int, int> children;
  for (const auto& [pid, link] : parent_of_) {
    if (pid != root_pid_) children.emplace(link.ppid, pid);
  }
  std::vector<Member> tree;
  std::set<int> parents;
  std::deque<int> queue{root_pid_};
  if (adopter_pid_ > 0) {  // orphans of the job, adopted by the watch (PR_SET_CHILD_SUBREAPER)
    const auto [first, last] = children.equal_range(adopter_pid_);
    for (auto it = first; it != last; ++it) {
      if (parent_of_[it->second].adoptable) queue.push_back(it->second);
    }
  }
  while (!queue.empty()) {
    const int pid = queue.front();
    queue.pop_front();
    const auto link = parent_of_.find(pid);
    if (link == parent_of_.end() || link->second.in_tree) continue;
    link->second.in_tree = true;
    tree.push_back({pid, link->second.starttime});
    parents.insert(link->second.ppid);  // the root's parent is outside: filtered below
    const auto [first, last] = children.equal_range(pid);
    for (auto it = first; it != last; ++it) queue.push_back(it->second);
  }
  parents_.clear();
  for (const Member& member : tree) {
    if (parents.count(member.pid)) parents_.insert(member.pid);
  }
  return tree;
}

// Moves the processes and threads this sample did not find out of the live maps, their totals
// kept for the report.
void ProcessTreeSampler::forget_departed() {
  for (auto it = processes_.begin(); it != processes_.end();) {
    if (it->second.seen == samples_) {
      ++it;
      continue;
    }
    // Still in /proc under its start time but out of the tree: re-parented, alive (see
    // count_job). Otherwise it was reaped, or vanished while the sample read it. An orphan the
    // watch adopted and reaped took its time into the watch's cutime, outside the tree: its
    // share stays too.
    const auto link = parent_of_.find(it->first.first);
    const bool left_alive =
        link != parent_of_.end() && link->second.starttime == it->first.second && !link->second.in_tree;
    const bool reaped_by_adopter = adopter_pid_ > 0 && it->second.ppid == adopter_pid_ && it->first.first != root_pid_;
    if (left_alive || reaped_by_adopter) {
      departed_alive_.ticks += it->second.job_ticks;
      departed_alive_.read_bytes += it->second.read_bytes.value_or(0);
    }
    finished_processes_.push_back(total_of(it->first.first, it->second));
    it = processes_.erase(it);
  }
  // Finished processes and threads are kept only while among the busiest: a job that starts a
  // process or thread per task would grow the lists without end, and the report shows the top.
  constexpr std::size_t kept_processes = 256;
  if (finished_processes_.size() > 2 * kept_processes) {
    std::stable_sort(finished_processes_.begin(), finished_processes_.end(), more_cpu<ProcessTotal>);
    finished_processes_.resize(kept_processes);
  }
  constexpr std::size_t kept_threads = 256;
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->second.seen == samples_) {
      ++it;
      continue;
    }
    finished_threads_.push_back(
        {it->first.first, it->second.pid, it->second.comm, it->second.cpu_s, it->second.blocked_s});
    it = threads_.erase(it);
  }
  if (finished_threads_.size() > 2 * kept_threads) {
    std::stable_sort(finished_threads_.begin(), finished_threads_.end(), more_cpu<ThreadTotal>);
    finished_threads_.resize(kept_threads);
  }
}

std::uint64_t ProcessTreeSampler::JobCounter::advance(std::uint64_t sum) {
  if (!base) base = sum;
  if (sum <= *base + counted) return 0;
  const std::uint64_t growth = sum - *base - counted;
  counted += growth;
  return growth;
}

// The job's CPU is the sum over the live tree of each process's own time and what it reaped
// from its children (cutime, cstime): a worker's time is in itself while it lives and in its
// parent once reaped, so the sum holds each tick of the job once, short-lived children
// included, and the job's count is the sum's growth. The sum dips in two cases:
// - a child reaped after the sample read its parent, before it read the child, is in neither
//   for one sample, and in the parent's cutime the next. The count is the sum's high-water
//   mark (JobCounter): the dip is no negative work, and the recovery no work counted twice.
//   Parents are read before children, so a reap in the window can only hide work, never
//   show it twice.
// - a process that leaves the tree alive (re-parented when its parent dies) takes its share:
//   departed_alive_ keeps its last share in the sum.
// Lost: a child whose parent ends without reaping it and that init reaps before the next
// sample; the count then waits until the job has done that much more work.
// Bytes read are counted the same way.
void ProcessTreeSampler::count_job(const Totals& totals, double dt_s, JobWatch& job) {
  const std::uint64_t ticks = job_ticks_.advance(totals.ticks + departed_alive_.ticks);
  job.cpu_s = static_cast<double>(job_ticks_.counted) / ticks_per_s_;
  if (dt_s > 0) job.cpu_pct = percent(static_cast<double>(ticks) / ticks_per_s_, dt_s);
  if (!totals.read_known) return;
  const bool primed = job_read_bytes_.base.has_value();
  const std::uint64_t bytes = job_read_bytes_.advance(totals.read_bytes + departed_alive_.read_bytes);
  if (primed && dt_s > 0) job.read_mbs = static_cast<double>(bytes) / 1e6 / dt_s;
}

ProcessTreeReading ProcessTreeSampler::sample(Clock::time_point now) {
  ProcessTreeReading reading;
  std::uint64_t starttime = 0;
  reading.root_alive = process_alive(root_, root_pid_, &starttime) && starttime == root_starttime_;
  if (!reading.root_alive) return reading;
  const bool priming = !last_time_;
  const double dt_s = last_time_ ? std::chrono::duration<double>(now - *last_time_).count() : 0.0;
  last_time_ = now;
  ++samples_;
  Totals totals;
  JobWatch& job = reading.job;
  for (const Member& member : current_tree()) {
    ProcWatch proc = sample_process(member, dt_s, priming, totals, job.top_blocked_pct, job.top_blocked_thread);
    job.threads += proc.threads;
    job.run_wait_pct += proc.run_wait_pct;
    if (proc.io_blocked_pct) job.io_blocked_pct = job.io_blocked_pct.value_or(0) + *proc.io_blocked_pct;
    job.busy_threads += proc.busy_threads;
    if (proc.busy_threads > 0 || proc.cpu_pct >= busy_demand_pct_) ++job.busy_processes;
    if (proc.top_thread_demand_pct > job.top_thread_demand_pct ||
        (proc.top_thread_demand_pct == job.top_thread_demand_pct && proc.top_thread_pct > job.top_thread_pct)) {
      job.top_thread_demand_pct = proc.top_thread_demand_pct;
      job.top_thread_pct = proc.top_thread_pct;
      job.top_thread = proc.top_thread;
    }
    reading.pids.push_back(member.pid);
    reading.procs.push_back(std::move(proc));
  }
  job.processes = static_cast<int>(reading.procs.size());
  forget_departed();
  count_job(totals, dt_s, job);
  return reading;
}

void ProcessTreeSampler::look_at_thread_states() {
  if (source_ != BlockedSource::thread_states) return;
  for (auto& [key, state] : threads_) {
    if (state.seen != samples_) continue;
    const auto text =
        read_proc_file(root_, "/proc/" + std::to_string(state.pid) + "/task/" + std::to_string(key.first) + "/stat");
    if (!text) continue;  // ended: the next sample forgets it
    const std::size_t close = text->rfind(')');
    if (close == std::string::npos || close + 2 >= text->size()) continue;
    const char task_state = (*text)[close + 2];
    state.looks.count(task_state, sleep_kind(state.pid, key.first, task_state));
  }
}

std::vector<ThreadTotal> ProcessTreeSampler::top_threads(std::size_t count) const {
  std::vector<ThreadTotal> all;
  for (const auto& [key, state] : threads_) {
    all.push_back({key.first, state.pid, state.comm, state.cpu_s, state.blocked_s});
  }
  all.insert(all.end(), finished_threads_.begin(), finished_threads_.end());
  std::stable_sort(all.begin(), all.end(), more_cpu<ThreadTotal>);
  if (all.size() > count) all.resize(count);
  return all;
}

ProcessTotal ProcessTreeSampler::total_of(int pid, const ProcessState& state) {
  ProcessTotal total{pid, state.ppid, state.comm, state.cpu_s, state.max_threads, std::nullopt};
  if (state.read_bytes && state.first_read_bytes) {
    total.read_bytes = static_cast<double>(*state.read_bytes - std::min(*state.read_bytes, *state.first_read_bytes));
  }
  return total;
}

std::vector<ProcessTotal> ProcessTreeSampler::processes() const {
  std::vector<ProcessTotal> all = finished_processes_;
  for (const auto& [key, state] : processes_) all.push_back(total_of(key.first, state));
  std::stable_sort(all.begin(), all.end(), more_cpu<ProcessTotal>);
  return all;
}

}  // namespace pipecheck
