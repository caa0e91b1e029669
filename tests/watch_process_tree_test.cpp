// The process-tree sampler: /proc parsers on recorded lines, real process trees on this machine
// (a shell with sleeping children, a busy loop's CPU demand), and fake /proc trees for pid reuse
// and reaped workers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tests/watch_test_support.hpp"
#include "watch/process_tree.hpp"

namespace pipecheck {
namespace {

using watch_test::Child;

TEST(WatchProcessTree, ParsesStatWithParenthesesInTheName) {
  const std::string line =
      "4242 (pt_data (worker) 3) R 4200 4242 4200 0 -1 4194304 1 0 0 0 1234 56 7 8 20 0 9 0 98765 1 1 0 0\n";
  const auto stat = parse_task_stat(line);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->comm, "pt_data (worker) 3");
  EXPECT_EQ(stat->state, 'R');
  EXPECT_EQ(stat->ppid, 4200);
  EXPECT_EQ(stat->utime, 1234u);
  EXPECT_EQ(stat->stime, 56u);
  EXPECT_EQ(stat->cutime, 7u);
  EXPECT_EQ(stat->cstime, 8u);
  EXPECT_EQ(stat->starttime, 98765u);
}

TEST(WatchProcessTree, ReadsTheDelayAccountingBlkioTicks) {
  // A thread of a cold reader, as /proc/PID/task/TID/stat shows it (kernel 6.1): field 42 holds
  // delayacct_blkio_ticks.
  const std::string line =
      "6001 (python3) D 5999 6001 5999 34816 6001 4194304 2051 0 0 0 312 95 0 0 20 0 1 0 98765 "
      "31514624 4104 18446744073709551615 94625 94630 140731 0 0 0 0 16781312 2 1 0 0 17 1 0 0 737 0 0 "
      "94632 94633 94634 140735 140736 140736 140737 0\n";
  const auto stat = parse_task_stat(line);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->state, 'D');
  EXPECT_EQ(stat->blkio_ticks, 737u);
  // An old kernel's shorter line: not reported, not zero.
  EXPECT_FALSE(parse_task_stat("12 (sh) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n")->blkio_ticks);
}

TEST(WatchProcessTree, DelayAccountingSwitch) {
  const auto dir = watch_test::scratch("delayacct");
  const SysfsRoot root(dir);
  EXPECT_FALSE(delay_accounting_on(root)) << "no switch (a kernel before 5.14): thread states";
  std::filesystem::create_directories(dir / "proc/sys/kernel");
  std::ofstream(dir / "proc/sys/kernel/task_delayacct") << "0\n";
  EXPECT_FALSE(delay_accounting_on(root));
  std::ofstream(dir / "proc/sys/kernel/task_delayacct") << "1\n";
  EXPECT_TRUE(delay_accounting_on(root));
  std::filesystem::remove_all(dir);
}

TEST(WatchProcessTree, RejectsTruncatedStat) {
  EXPECT_FALSE(parse_task_stat("12 (sh) S 1 2 3"));
  EXPECT_FALSE(parse_task_stat("garbage"));
}

TEST(WatchProcessTree, ParsesSchedstatAndIo) {
  const auto sched = parse_schedstat("182523531 394695883 48\n");
  ASSERT_TRUE(sched);
  EXPECT_EQ(sched->run_ns, 182523531u);
  EXPECT_EQ(sched->wait_ns, 394695883u);
  EXPECT_FALSE(parse_schedstat(""));
  const std::string io = "rchar: 6976\nwchar: 0\nsyscr: 10\nsyscw: 0\nread_bytes: 8192\nwrite_bytes: 0\n"
                         "cancelled_write_bytes: 4096\n";
  EXPECT_EQ(parse_io_read_bytes(io), 8192u);
  EXPECT_FALSE(parse_io_read_bytes("rchar: 1\n"));
}

TEST(WatchProcessTree, SanitizesNamesForCsvAndTerminal) {
  EXPECT_EQ(sanitize_name("a,b|c\"d\\e\x1b[31m"), "a,b|c\"d\\\\e\\x1b[31m");
  EXPECT_EQ(sanitize_name("my,pr\"oc\n"), "my,pr\"oc\\x0a");
  EXPECT_EQ(sanitize_name("caf\xe9"), "caf\\xe9");
  EXPECT_EQ(sanitize_name("python3"), "python3");
}

TEST(WatchProcessTree, FindsEveryDescendant) {
  Child child("sleep 30 & sleep 30 & sh -c 'sleep 30' & wait");
  std::vector<int> tree;
  for (int attempt = 0; attempt < 100 && tree.size() < 5; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    tree = process_tree_pids(SysfsRoot("/"), child.pid());
  }
  ASSERT_EQ(tree.size(), 5u) << "sh, 2 sleeps, sh -c and its sleep";
  EXPECT_EQ(tree.front(), child.pid());
}

TEST(WatchProcessTree, MissingRootIsEmptyAndNotAlive) {
  EXPECT_TRUE(process_tree_pids(SysfsRoot("/"), 999999999).empty());
  EXPECT_FALSE(process_alive(SysfsRoot("/"), 999999999));
}

TEST(WatchProcessTree, BusyLoopShowsFullDemandEvenOnALoadedMachine) {
  Child child("while :; do :; done");
  ProcessTreeSampler sampler(SysfsRoot("/"), child.pid(), 50);
  sampler.sample(std::chrono::steady_clock::now());  // primes
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  const ProcessTreeReading reading = sampler.sample(std::chrono::steady_clock::now());
  ASSERT_TRUE(reading.root_alive);
  EXPECT_EQ(reading.job.processes, 1);
  EXPECT_EQ(reading.job.threads, 1);
  // On a CPU or runnable and waiting for one all the time, whatever share of a core it got.
  EXPECT_GT(reading.job.top_thread_demand_pct, 85) << reading.job.top_thread;
  EXPECT_GT(reading.job.top_thread_pct, 5);
  EXPECT_EQ(reading.job.busy_threads, 1);
  EXPECT_NE(reading.job.top_thread.find("sh:"), std::string::npos);
  const auto threads = sampler.top_threads(3);
  ASSERT_FALSE(threads.empty());
  EXPECT_GT(threads.front().cpu_s, 0.0);
}

TEST(WatchProcessTree, EndsWhenTheRootExits) {
  Child child("sleep 0.2");
  ProcessTreeSampler sampler(SysfsRoot("/"), child.pid(), 50);
  EXPECT_TRUE(sampler.sample(std::chrono::steady_clock::now()).root_alive);
  child.stop();
  EXPECT_FALSE(sampler.sample(std::chrono::steady_clock::now()).root_alive);
}

// ---- fake /proc trees written sample by sample: reused pids, and workers that exit and are
// reaped (DataLoader workers do every epoch), counted exactly once.

namespace fs = std::filesystem;

// One process of the fake tree; its only thread has the process's pid, start and ticks.
struct FakeProcess {
  int pid = 0;
  int ppid = 0;
  std::uint64_t starttime = 0;
  std::uint64_t utime = 0;   // own ticks
  std::uint64_t cutime = 0;  // reaped children's ticks
  std::string comm = "python3";
  char state = 'S';
  std::uint64_t blkio_ticks = 0;  // field 42
  std::uint64_t wait_ns = 0;      // schedstat: runnable, not on a CPU
  std::uint64_t run_ns = 0;       // schedstat: on a CPU
  bool schedstat = true;          // false: a kernel without CONFIG_SCHED_INFO
};

// A /proc the test rewrites between samples: only the files the sampler reads.
class FakeProc {
 public:
  explicit FakeProc(const std::string& name) : root_(watch_test::scratch(name)) {}
  ~FakeProc() { fs::remove_all(root_); }
  FakeProc(const FakeProc&) = delete;
  FakeProc& operator=(const FakeProc&) = delete;

  SysfsRoot root() const { return SysfsRoot(root_); }

  // Replaces /proc with exactly these processes.
  void show(const std::vector<FakeProcess>& processes) {
    fs::remove_all(root_ / "proc");
    for (const auto& p : processes) write(p);
  }

 private:
  static std::string stat_line(const FakeProcess& p) {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    // utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize
    // ... vsize (23) and 18 more zeros to delayacct_blkio_ticks (42).
    std::string line = std::to_string(p.pid) + " (" + p.comm + ") " + p.state + " " + std::to_string(p.ppid) +
                       " 1 1 0 -1 0 0 0 0 0 " + std::to_string(p.utime) + " 0 " + std::to_string(p.cutime) +
                       " 0 20 0 1 0 " + std::to_string(p.starttime);
    for (int field = 23; field < 42; ++field) line += " 0";
    return line + " " + std::to_string(p.blkio_ticks) + "\n";
  }
  static void put(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  void write(const FakeProcess& p) {
    const fs::path dir = root_ / "proc" / std::to_string(p.pid);
    put(dir / "stat", stat_line(p));
    const fs::path task = dir / "task" / std::to_string(p.pid);
    FakeProcess thread = p;
    thread.cutime = 0;
    put(task / "stat", stat_line(thread));
    if (p.schedstat) put(task / "schedstat", std::to_string(p.run_ns) + " " + std::to_string(p.wait_ns) + " 0\n");
  }

 public:
  // Rewrites one process's thread (its state between samples).
  void rewrite(const FakeProcess& p) { write(p); }

 private:

  fs::path root_;
};

double ticks_s(std::uint64_t ticks) {
  const long per_s = sysconf(_SC_CLK_TCK);
  return static_cast<double>(ticks) / static_cast<double>(per_s > 0 ? per_s : 100);
}

ProcessTreeSampler::Clock::time_point at(int second) {
  return ProcessTreeSampler::Clock::time_point() + std::chrono::seconds(second);
}

constexpr int root_pid = 100;
constexpr std::uint64_t root_start = 1000;

FakeProcess root_process(std::uint64_t utime, std::uint64_t cutime = 0) {
  return {root_pid, 1, root_start, utime, cutime, "torchrun"};
}

std::vector<ProcessTotal> totals_of(const ProcessTreeSampler& sampler, int pid) {
  std::vector<ProcessTotal> found;
  for (const auto& p : sampler.processes()) {
    if (p.pid == pid) found.push_back(p);
  }
  return found;
}

TEST(ProcessTreeFakeProc, UnrelatedProcessReusingAWorkerPidIsNotCounted) {
  FakeProc proc("reuse-unrelated");
  proc.show({root_process(100), {200, root_pid, 2000, 50}});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.sample(at(0));
  proc.show({root_process(110), {200, root_pid, 2000, 60}});
  EXPECT_DOUBLE_EQ(sampler.sample(at(1)).job.cpu_s, ticks_s(20));
  // The worker ends (65 ticks in all, now in the root's cutime) and an unrelated process of
  // init's, with 1000 s of CPU, gets pid 200.
  proc.show({root_process(120, 65), {200, 1, 9000, 100000, 0, "backup"}});
  const ProcessTreeReading reading = sampler.sample(at(2));
  EXPECT_EQ(reading.pids, std::vector<int>{root_pid});
  EXPECT_DOUBLE_EQ(reading.job.cpu_s, ticks_s(20 + 10 + 5));
  EXPECT_NEAR(reading.job.cpu_pct, 100.0 * ticks_s(15), 1e-9);
  for (const auto& p : sampler.processes()) EXPECT_NE(p.comm, "backup");
}

TEST(ProcessTreeFakeProc, WorkerPidReusedByANewWorkerCountsFromItsOwnStart) {
  FakeProc proc("reuse-worker");
  proc.show({root_process(100), {200, root_pid, 2000, 10}});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.sample(at(0));
  proc.show({root_process(100), {200, root_pid, 2000, 20}});
  sampler.sample(at(1));
  // The old worker ends at 25 ticks; a new one, started since, has pid 200 and 30 ticks.
  proc.show({root_process(100, 25), {200, root_pid, 5000, 30}});
  const ProcessTreeReading reading = sampler.sample(at(2));
  ASSERT_EQ(reading.procs.size(), 2u);
  EXPECT_DOUBLE_EQ(reading.procs[1].cpu_s, ticks_s(30));
  EXPECT_NEAR(reading.procs[1].cpu_pct, 100.0 * ticks_s(30), 1e-9);
  EXPECT_DOUBLE_EQ(reading.job.cpu_s, ticks_s(10 + 5 + 30));
  // Two processes and two threads with pid 200, each with its own time.
  auto workers = totals_of(sampler, 200);
  ASSERT_EQ(workers.size(), 2u);
  EXPECT_DOUBLE_EQ(workers[0].cpu_s, ticks_s(30));
  EXPECT_DOUBLE_EQ(workers[1].cpu_s, ticks_s(10));
  const auto threads = sampler.top_threads(10);
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_EQ(threads[0].tid, 200);
  EXPECT_DOUBLE_EQ(threads[0].cpu_s, ticks_s(30));
  EXPECT_EQ(threads[1].tid, 200);
  EXPECT_DOUBLE_EQ(threads[1].cpu_s, ticks_s(10));
}

TEST(ProcessTreeFakeProc, ChildReapedWhileItsParentIsReadIsCountedOnce) {
  FakeProc proc("reaped-mid-sample");
  proc.show({root_process(100), {200, root_pid, 2000, 50}});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.sample(at(0));
  // What a sample sees when the worker is reaped after its parent was read: the parent's
  // cutime does not have the worker's 55 ticks yet, and the worker is gone.
  proc.show({root_process(110)});
  const double mid = sampler.sample(at(1)).job.cpu_s;
  proc.show({root_process(120, 55)});
  const double end = sampler.sample(at(2)).job.cpu_s;
  EXPECT_LE(mid, end);
  // The root's 20 ticks and the worker's last 5, once.
  EXPECT_DOUBLE_EQ(end, ticks_s(25));
  proc.show({root_process(130, 55)});
  EXPECT_DOUBLE_EQ(sampler.sample(at(3)).job.cpu_s, ticks_s(35));
}

TEST(ProcessTreeFakeProc, WorkersThatExitEveryEpochAreCountedOnce) {
  FakeProc proc("epochs");
  std::uint64_t root_ticks = 100;
  std::uint64_t reaped = 0;
  std::uint64_t truth = 0;  // ticks the job used since the first sample
  int second = 0;
  proc.show({root_process(root_ticks)});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.sample(at(second++));
  for (int epoch = 0; epoch < 4; ++epoch) {
    const int pid = 300 + epoch;
    const std::uint64_t start = 3000 + 10 * static_cast<std::uint64_t>(epoch);
    for (std::uint64_t worker_ticks : {40, 90}) {
      root_ticks += 5;
      truth += 5 + (worker_ticks == 40 ? 40 : 50);
      proc.show({root_process(root_ticks, reaped), {pid, root_pid, start, worker_ticks}});
      sampler.sample(at(second++));
    }
    // Reaped at 100 ticks; odd epochs while the sampler reads the root (the race).
    root_ticks += 5;
    truth += 5 + 10;
    if (epoch % 2 == 1) {
      proc.show({root_process(root_ticks, reaped)});
      sampler.sample(at(second++));
    }
    reaped += 100;
    proc.show({root_process(root_ticks, reaped)});
    const ProcessTreeReading reading = sampler.sample(at(second++));
    EXPECT_DOUBLE_EQ(reading.job.cpu_s, ticks_s(truth)) << "epoch " << epoch;
  }
}

TEST(ProcessTreeFakeProc, ProcessLeavingTheTreeAliveKeepsWhatItUsed) {
  FakeProc proc("orphan");
  proc.show({root_process(100), {150, root_pid, 1500, 10}, {200, 150, 2000, 40}});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.sample(at(0));
  // 150 ends (12 ticks, reaped by the root); its child 200 goes to init and lives on.
  proc.show({root_process(105, 12), {200, 1, 2000, 45}});
  const ProcessTreeReading reading = sampler.sample(at(1));
  EXPECT_EQ(reading.pids, std::vector<int>{root_pid});
  EXPECT_DOUBLE_EQ(reading.job.cpu_s, ticks_s(5 + 2));
  proc.show({root_process(115, 12), {200, 1, 2000, 1000}});
  EXPECT_DOUBLE_EQ(sampler.sample(at(2)).job.cpu_s, ticks_s(5 + 2 + 10));
}

// ---- blocked on I/O and run-queue wait, per thread

// The watch is the subreaper of the command it starts. A double-forked worker can be
// re-parented to it before the sampler exists (a loaded machine: CI saw it); the watch's own
// children from before the spawn, told by the list read then, are never the job's, even when
// they started in the same 10 ms tick.
TEST(ProcessTreeFakeProc, OrphanAdoptedBeforeTheFirstSampleIsTheJobsTheWatchersOwnChildIsNot) {
  FakeProc proc("adopter");
  constexpr int watcher = 50;
  FakeProcess job_root = root_process(100);
  FakeProcess own{300, watcher, root_start, 500, 0, "cpuhog"};      // the watcher's, from before
  FakeProcess orphan{400, watcher, root_start, 200, 0, "worker"};  // the job's, already re-parented
  proc.show({job_root, own, orphan});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50, watcher, {{300, root_start}});
  sampler.sample(at(0));
  own.utime += 100;
  orphan.utime += 100;
  proc.show({job_root, own, orphan});
  const ProcessTreeReading reading = sampler.sample(at(1));
  EXPECT_NE(std::find(reading.pids.begin(), reading.pids.end(), 400), reading.pids.end()) << "the orphan is the job's";
  EXPECT_EQ(std::find(reading.pids.begin(), reading.pids.end(), 300), reading.pids.end()) << "the watcher's own child is not";
}

TEST(ProcessTreeFakeProc, ThreadStatesLookedAtBetweenSamplesGiveTheBlockedShare) {
  FakeProc proc("states");
  FakeProcess reader = root_process(100);
  proc.show({reader});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  EXPECT_EQ(sampler.blocked_source(), BlockedSource::thread_states);
  sampler.sample(at(0));
  // Ten looks a second: blocked in 4 of them, and running at the sample itself; the scheduler
  // says it ran 0.6 s of the second.
  reader.run_ns = 600'000'000;
  reader.state = 'D';
  proc.rewrite(reader);
  for (int look = 0; look < 4; ++look) sampler.look_at_thread_states();
  reader.state = 'R';
  proc.rewrite(reader);
  for (int look = 0; look < 5; ++look) sampler.look_at_thread_states();
  const ProcessTreeReading reading = sampler.sample(at(1));
  ASSERT_TRUE(reading.job.io_blocked_pct);
  EXPECT_DOUBLE_EQ(*reading.job.io_blocked_pct, 40.0);
  EXPECT_DOUBLE_EQ(reading.job.top_blocked_pct, 40.0);
  EXPECT_EQ(reading.job.top_blocked_thread, "torchrun:100");
  ASSERT_EQ(reading.procs.size(), 1u);
  EXPECT_DOUBLE_EQ(*reading.procs[0].io_blocked_pct, 40.0);
  // The looks start again each sample: nothing blocked in the next interval.
  reader.run_ns += 1'000'000'000;
  proc.rewrite(reader);
  EXPECT_DOUBLE_EQ(*sampler.sample(at(2)).job.io_blocked_pct, 0.0);
  EXPECT_DOUBLE_EQ(sampler.top_threads(1).front().blocked_s, 0.4);
}

// Shows the thread in each of `states` in turn with one look at each, then leaves it in R for
// the look of the sample that follows.
void look_in_turn(FakeProc& proc, ProcessTreeSampler& sampler, FakeProcess& process, std::string_view states) {
  for (char state : states) {
    process.state = state;
    proc.rewrite(process);
    sampler.look_at_thread_states();
  }
  process.state = 'R';
  proc.rewrite(process);
}

struct OneSecond {
  double blocked_pct = -1;  // of a core; -1 when none was measured
  bool schedstat_seen = false;
};

// One second of a one-thread job: on a CPU run_ns, waiting for one wait_ns, its state looked at
// once for each letter of `states`. What the sampler makes of its time blocked on I/O.
OneSecond watch_one_second(const std::string& name, FakeProcess thread, std::uint64_t run_ns,
                           std::uint64_t wait_ns, std::string_view states) {
  FakeProc proc(name);
  proc.show({thread});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.sample(at(0));
  thread.run_ns += run_ns;
  thread.wait_ns += wait_ns;
  look_in_turn(proc, sampler, thread, states);
  const ProcessTreeReading reading = sampler.sample(at(1));
  return {reading.job.io_blocked_pct.value_or(-1), sampler.schedstat_seen()};
}

// A reader that blocks for tens of microseconds per read is seen asleep by few looks, but the
// scheduler's clock says how long it was off a CPU: every sleep seen was a read, so all of it is.
TEST(ProcessTreeFakeProc, TimeOffACpuCountsAsBlockedWhenEverySleepSeenWasARead) {
  // On a CPU 0.4 s, waiting for one 0.1 s, off a CPU the other 0.5 s; one look of ten in D.
  const OneSecond second = watch_one_second("off-cpu-reads", root_process(100), 400'000'000, 100'000'000, "DRRRRRRRR");
  EXPECT_NEAR(second.blocked_pct, 50.0, 1e-9) << "the looks alone would say 10%";
  EXPECT_TRUE(second.schedstat_seen);
}

// Time off a CPU is split by what the looks found: D is I/O, S is any other wait (a queue, a lock).
TEST(ProcessTreeFakeProc, TimeOffACpuIsSplitBetweenReadsAndOtherWaits) {
  const OneSecond second = watch_one_second("off-cpu-split", root_process(100), 200'000'000, 0, "DSSSRRRRR");
  EXPECT_NEAR(second.blocked_pct, 20.0, 1e-9) << "a quarter of the 0.8 s off a CPU";
}

// Few looks an interval can all find a fast reader running: its off-CPU time is then split as
// its earlier looks split it, not dropped (beside a busy loop, dd showed 0% blocked this way).
TEST(ProcessTreeFakeProc, AnIntervalWhoseLooksAllFoundItRunningTakesTheEarlierSplit) {
  FakeProc proc("earlier-split");
  FakeProcess reader = root_process(100);
  reader.state = 'R';  // at the first sample too: its only sleeps seen are reads
  proc.show({reader});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.sample(at(0));
  reader.run_ns += 400'000'000;
  look_in_turn(proc, sampler, reader, "DR");
  EXPECT_NEAR(sampler.sample(at(1)).job.io_blocked_pct.value_or(-1), 60.0, 1e-9);
  reader.run_ns += 400'000'000;  // off a CPU 0.6 s again, and no look catches it asleep
  look_in_turn(proc, sampler, reader, "RR");
  EXPECT_NEAR(sampler.sample(at(2)).job.io_blocked_pct.value_or(-1), 60.0, 1e-9) << "0 before the earlier split counted";
}

// Without schedstat, the share of looks in D is all there is.
TEST(ProcessTreeFakeProc, WithoutSchedstatTheShareOfLooksInDCounts) {
  FakeProcess reader = root_process(100);
  reader.schedstat = false;
  const OneSecond second = watch_one_second("no-schedstat", reader, 0, 0, "DRRRRRRRR");
  EXPECT_NEAR(second.blocked_pct, 10.0, 1e-9);
  EXPECT_FALSE(second.schedstat_seen);
  EXPECT_EQ(describe(BlockedSource::thread_states, 10, false), "thread states (D) looked at 10 times a second");
  EXPECT_EQ(describe(BlockedSource::thread_states, 10, true),
            "time off a CPU (schedstat) split by thread states (D: I/O, S: other waits) looked at 10 times a second");
}

TEST(WatchProcessTree, BlockedSecondsFromLooksAndTheSchedulersClock) {
  const Looks none;
  EXPECT_DOUBLE_EQ(blocked_seconds({0, 0, 0}, none, 0.5, 1.0), 0.0) << "no look: nothing known";
  EXPECT_DOUBLE_EQ(blocked_seconds({10, 0, 0}, none, 0.5, 1.0), 0.0) << "never seen asleep";
  EXPECT_DOUBLE_EQ(blocked_seconds({10, 2, 0}, none, 0.25, 2.0), 1.75);
  EXPECT_DOUBLE_EQ(blocked_seconds({10, 1, 3}, none, 1.2, 2.0), 0.2);
  EXPECT_DOUBLE_EQ(blocked_seconds({10, 3, 0}, none, std::nullopt, 2.0), 0.6) << "without schedstat";
  EXPECT_DOUBLE_EQ(blocked_seconds({4, 4, 0}, none, 1.5, 1.0), 0.0) << "busy longer than the interval: none off a CPU";
  // Three looks that all found it running: the split of its earlier looks (1 in D, 1 in S).
  EXPECT_DOUBLE_EQ(blocked_seconds({3, 0, 0}, {20, 1, 1}, 0.4, 1.0), 0.3);
  EXPECT_DOUBLE_EQ(blocked_seconds({3, 0, 1}, {20, 5, 0}, 0.4, 1.0), 0.0) << "this interval's own split first";
  EXPECT_DOUBLE_EQ(blocked_seconds({3, 0, 0}, {20, 5, 0}, std::nullopt, 1.0), 0.0) << "without schedstat: its own looks";
}

TEST(ProcessTreeFakeProc, DelayAccountingCountsEveryBlockedTick) {
  FakeProc proc("delayacct-ticks");
  FakeProcess reader = root_process(100);
  reader.blkio_ticks = 1000;  // before the watch: not counted
  proc.show({reader});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.use_delay_accounting(true);
  sampler.sample(at(0));
  const long per_s = sysconf(_SC_CLK_TCK);
  reader.blkio_ticks += static_cast<std::uint64_t>(per_s) * 13 / 20;  // 0.65 s of the 2 s
  reader.state = 'S';  // what a look would have seen does not matter
  proc.rewrite(reader);
  const ProcessTreeReading reading = sampler.sample(at(2));
  ASSERT_TRUE(reading.job.io_blocked_pct);
  EXPECT_NEAR(*reading.job.io_blocked_pct, 32.5, 0.6);
}

TEST(ProcessTreeFakeProc, RunQueueWaitIsSummedOverThreads) {
  FakeProc proc("run-wait");
  FakeProcess root = root_process(100);
  FakeProcess worker{200, root_pid, 2000, 10};
  proc.show({root, worker});
  ProcessTreeSampler sampler(proc.root(), root_pid, 50);
  sampler.sample(at(0));
  root.wait_ns = 300'000'000;    // 0.3 s of the second runnable without a CPU
  worker.wait_ns = 450'000'000;  // 0.45 s
  proc.show({root, worker});
  const ProcessTreeReading reading = sampler.sample(at(1));
  EXPECT_NEAR(reading.job.run_wait_pct, 75.0, 1e-9);
}

}  // namespace
}  // namespace pipecheck
