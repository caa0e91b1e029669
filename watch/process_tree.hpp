// The job's process tree as /proc shows it: the root and every descendant, each process's CPU
// time and bytes read, and each thread's CPU time and CPU demand (on a CPU or waiting for one),
// sampled as rates over the interval between two samples.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/sysfs.hpp"
#include "watch/watch_sample.hpp"

namespace pipecheck {

// The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) the watch needs. comm sits between
// the first '(' and the LAST ')', and may itself hold spaces and parentheses.
struct TaskStat {
  int pid = 0;
  std::string comm;
  char state = '?';
  int ppid = 0;
  std::uint64_t utime = 0;   // clock ticks
  std::uint64_t stime = 0;
  std::uint64_t cutime = 0;  // reaped children, which the process waited for
  std::uint64_t cstime = 0;
  std::uint64_t starttime = 0;  // ticks after boot: tells a reused pid from the one we watch
  // Field 42: clock ticks spent waiting for block I/O, counted only while the kernel's task
  // delay accounting is on (/proc/sys/kernel/task_delayacct); absent on kernels before 2.6.18.
  std::optional<std::uint64_t> blkio_ticks;
};
std::optional<TaskStat> parse_task_stat(std::string_view text);

// /proc/.../schedstat: nanoseconds on a CPU, nanoseconds runnable but waiting for one.
struct SchedStat {
  std::uint64_t run_ns = 0;
  std::uint64_t wait_ns = 0;
};
std::optional<SchedStat> parse_schedstat(std::string_view text);

// read_bytes of /proc/PID/io: what the process (and the children it reaped) caused to be read
// from block devices, page cache hits excluded, O_DIRECT included.
std::optional<std::uint64_t> parse_io_read_bytes(std::string_view text);

// A process or thread name fit for one line of a CSV record and a terminal: escape_name's
// \xHH for control characters and invalid UTF-8 (core/text_escape.hpp); commas and quotes are
// kept (watch.csv quotes them as RFC 4180 does).
std::string sanitize_name(std::string_view name);

// The root and all its descendants (found by ppid over /proc), root first; empty when the root
// does not exist.
std::vector<int> process_tree_pids(const SysfsRoot& root, int root_pid);

// Whether pid names a live (not zombie) process; its start time in *starttime.
bool process_alive(const SysfsRoot& root, int pid, std::uint64_t* starttime = nullptr);

struct ThreadTotal {
  int tid = 0;
  int pid = 0;
  std::string comm;
  double cpu_s = 0;      // while watched
  double blocked_s = 0;  // blocked on I/O while watched
};

// Where the blocked-on-I/O time comes from. Delay accounting counts every tick a thread waits
// for block I/O; otherwise the thread's time off a CPU (schedstat) is split by looks at its
// state at least 10 times a second: D (uninterruptible sleep, which is almost always disk or
// network-filesystem I/O) against S, a sampled estimate of the split.
enum class BlockedSource { delay_accounting, thread_states };
// "delay accounting (delayacct_blkio_ticks)" / "time off a CPU (schedstat) split by thread
// states ... looked at 10 times a second" / "thread states (D) looked at ..." without schedstat.
std::string describe(BlockedSource source, double looks_per_s, bool schedstat);

// Looks at one thread's state in one interval: how many, how many found it in D
// (uninterruptible: I/O), and in S (waiting for anything else: a queue, a lock, a sleep).
// Of the looks in S, where the syscall was read (/proc/.../syscall; only for the main thread of a
// process with children, the training loop's candidates): how many found it in a timed sleep
// (nanosleep, clock_nanosleep) and how many waiting for a child to end (wait4, waitid, or a
// signal wait: rt_sigsuspend, rt_sigtimedwait, pause, as GNU timeout waits for its SIGCHLD).
enum class SleepKind { unknown, timed, reaping, other };
// The kind of sleep a /proc/PID/task/TID/syscall text shows ("230 0x0 ..." on x86-64).
SleepKind sleep_kind_of(std::string_view syscall_text);

struct Looks {
  int total = 0;
  int blocked = 0;
  int sleeping = 0;
  int timed = 0;
  int reaping = 0;
  int classified = 0;  // S looks whose syscall was read
  void count(char task_state, SleepKind kind = SleepKind::unknown) {
    ++total;
    if (task_state == 'D') ++blocked;
    if (task_state != 'S') return;
    ++sleeping;
    if (kind != SleepKind::unknown) ++classified;
    if (kind == SleepKind::timed) ++timed;
    if (kind == SleepKind::reaping) ++reaping;
  }
  void add(const Looks& other) {
    total += other.total;
    blocked += other.blocked;
    sleeping += other.sleeping;
    timed += other.timed;
    reaping += other.reaping;
    classified += other.classified;
  }
  int asleep() const { return blocked + sleeping; }
};
// Where a thread's time went in an interval of dt_s (% of it), its time off a CPU split as
// blocked_seconds splits it: by this interval's looks, or the earlier ones when none found it asleep.
ThreadTime thread_time(const Looks& looks, const Looks& earlier, std::optional<double> busy_s, double dt_s);
// Its seconds blocked on I/O in the interval of dt_s: with busy_s (schedstat's on a CPU + waiting
// for one, in the same interval) the time off a CPU split by the D and S looks of the interval,
// or by the thread's `earlier` looks when none of this interval's found it asleep; without
// busy_s, the share of this interval's looks in D.
double blocked_seconds(const Looks& looks, const Looks& earlier, std::optional<double> busy_s, double dt_s);
// Whether the kernel counts delays now: /proc/sys/kernel/task_delayacct reads 1. (Kernels
// before 5.14 have no such switch; there the thread states are used too.)
bool delay_accounting_on(const SysfsRoot& root);

struct ProcessTotal {
  int pid = 0;
  int ppid = 0;
  std::string comm;
  double cpu_s = 0;  // its own threads, while watched
  int max_threads = 0;
  std::optional<double> read_bytes;  // while watched
};

struct ProcessTreeReading {
  bool root_alive = false;
  JobWatch job;
  std::vector<ProcWatch> procs;
  std::vector<int> pids;  // the tree as found this sample
};

// A process and its start time (field 22 of stat, ticks after boot), which tells it from a
// later process given the same pid.
struct ChildProcess {
  int pid = 0;
  std::uint64_t starttime = 0;
};
// The children of `parent` now.
std::vector<ChildProcess> children_of(const SysfsRoot& root, int parent);

class ProcessTreeSampler {
 public:
  using Clock = std::chrono::steady_clock;

  // busy_demand_pct: a thread whose demand reaches this share of a core counts as busy.
  // adopter_pid: a subreaper (the watch that started the job) to which a worker whose parent
  // died is re-parented instead of init, so it stays in the tree. adopters_own_children: the
  // adopter's children from before the job started (children_of, read before the spawn: a
  // double-forked worker can be re-parented before the sampler exists), never the job's.
  ProcessTreeSampler(SysfsRoot root, int root_pid, double busy_demand_pct, int adopter_pid = 0,
                     const std::vector<ChildProcess>& adopters_own_children = {});

  // The first sample only primes the counters: rates need two.
  ProcessTreeReading sample(Clock::time_point now);

  // Blocked-on-I/O time from delay accounting instead of thread states.
  void use_delay_accounting(bool on) { source_ = on ? BlockedSource::delay_accounting : BlockedSource::thread_states; }
  BlockedSource blocked_source() const { return source_; }
  // Whether any thread's schedstat was read (the kernel has CONFIG_SCHED_INFO).
  bool schedstat_seen() const { return schedstat_seen_; }
  // One look at the state of every thread found by the last sample (with thread states; the
  // session calls it between samples, 10 times a second or more). Each sample looks once too.
  void look_at_thread_states();

  // The threads and processes that used the most CPU while watched, most first.
  std::vector<ThreadTotal> top_threads(std::size_t count) const;
  std::vector<ProcessTotal> processes() const;

 private:
  // A process or thread is its id and its start time (field 22 of stat, ticks after boot): an
  // id the kernel hands out again is a new key, and inherits nothing from the old one.
  using Key = std::pair<int, std::uint64_t>;
  struct ThreadState {
    int pid = 0;
    std::string comm;
    std::uint64_t ticks = 0;
    std::optional<SchedStat> sched;
    std::optional<std::uint64_t> blkio_ticks;
    Looks looks;          // state looks since the last sample
    Looks earlier_looks;  // all its looks before those
    double cpu_s = 0;
    double blocked_s = 0;
    std::uint64_t seen = 0;  // the last sample that found it
  };
  struct ProcessState {
    int ppid = 0;
    std::string comm;
    std::uint64_t ticks = 0;      // own utime + stime
    std::uint64_t job_ticks = 0;  // ticks + cutime + cstime: its share of the job's sum
    std::optional<std::uint64_t> read_bytes;
    std::optional<std::uint64_t> first_read_bytes;
    double cpu_s = 0;
    int max_threads = 0;
    std::uint64_t seen = 0;
  };
  struct ParentLink {
    int ppid = -1;
    std::uint64_t starttime = 0;
    bool in_tree = false;  // at the last sample
    // A child of the adopter that may be an orphan of the job: it was in the job's tree, or is
    // new and started after the job. The adopter's own children from before the watch (a
    // test's busy loops beside a watch run in-process) are known from the start and not the job's.
    bool adoptable = false;
  };
  struct Member {
    int pid = 0;
    std::uint64_t starttime = 0;
  };
  struct Totals {  // summed over the live tree; see the .cpp for why sums and not deltas
    std::uint64_t ticks = 0;
    std::uint64_t read_bytes = 0;
    bool read_known = false;
  };
  // A job-wide count (CPU ticks, bytes read) from per-sample sums over the tree: the high-water
  // mark of the sum above its first value, so a sum that dips for a sample and recovers adds
  // its work once.
  struct JobCounter {
    std::optional<std::uint64_t> base;
    std::uint64_t counted = 0;
    std::uint64_t advance(std::uint64_t sum);  // the count's growth
  };

  // top_blocked_pct / top_blocked: the thread blocked on I/O the longest so far this sample.
  ProcWatch sample_process(const Member& member, double dt_s, bool priming, Totals& totals, double& top_blocked_pct,
                           std::string& top_blocked);
  void sample_threads(int pid, double dt_s, bool priming, ProcWatch& proc, double& top_blocked_pct,
                      std::string& top_blocked);
  std::vector<Member> current_tree();
  // The main thread's state, with the kind of sleep where it is a parent's (see Looks).
  SleepKind sleep_kind(int pid, int tid, char state) const;
  std::vector<Member> walk_tree();
  void forget_departed();
  void count_job(const Totals& totals, double dt_s, JobWatch& job);
  static ProcessTotal total_of(int pid, const ProcessState& state);

  SysfsRoot root_;
  int root_pid_;
  int adopter_pid_ = 0;
  double busy_demand_pct_;
  double ticks_per_s_;
  BlockedSource source_ = BlockedSource::thread_states;
  bool schedstat_seen_ = false;
  std::uint64_t root_starttime_ = 0;
  std::optional<Clock::time_point> last_time_;
  std::uint64_t samples_ = 0;
  JobCounter job_ticks_;
  JobCounter job_read_bytes_;
  Totals departed_alive_;  // last shares of processes that left the tree alive
  std::map<Key, ThreadState> threads_;     // live ones
  std::map<Key, ProcessState> processes_;  // live ones
  std::vector<ThreadTotal> finished_threads_;
  std::vector<ProcessTotal> finished_processes_;
  // Every live pid's parent and start time, kept between samples: a process's parent changes
  // only when the parent dies, so only new pids and the tree's own need their stat read each
  // sample, not all of /proc (the scan was most of the sampler's cost on a machine with a
  // thousand processes).
  std::map<int, ParentLink> parent_of_;
  std::set<int> parents_;  // the tree's processes with children in it, at the last sample
};

}  // namespace pipecheck
