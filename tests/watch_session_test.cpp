// `pipecheck watch` on real processes of this machine, each a few seconds: a single-threaded
// CPU-bound command, an O_DIRECT reader, a command idling at a regular period, a pid that exits
// mid-watch, and the errors for a pid or command that does not exist. GPU sampling is off here
// so the CPU and disk rules judge whatever machine runs the tests.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "tests/watch_test_support.hpp"
#include "watch/job_devices.hpp"
#include "watch/watch_csv.hpp"
#include "watch/watch_session.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

WatchConfig config_in(const fs::path& dir, double interval_s) {
  WatchConfig config;
  config.out_dir = dir / "out";
  config.interval_s = interval_s;
  config.use_nvml = false;
  config.find_baseline = false;
  config.live = false;
  return config;
}

std::string rules_fired(const WatchReport& report) {
  std::string text;
  for (const auto& f : report.verdict.findings) text += f.rule + ": " + f.verdict + "\n";
  return text;
}

TEST(WatchSession, SingleThreadedCpuBoundCommand) {
  const auto dir = watch_test::scratch("session-cpu");
  WatchConfig config = config_in(dir, 0.2);
  config.command = {"timeout", "3", "sh", "-c", "while :; do :; done"};
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  EXPECT_EQ(outcome.exit_code, 124) << "timeout's own code passes through";
  const WatchReport& r = outcome.report;
  EXPECT_EQ(r.stopped_by, "job_exited");
  EXPECT_EQ(r.job_ending, "exit code 124");
  ASSERT_TRUE(r.verdict.headline) << err.str();
  // On a machine that other work keeps busy (a build beside the tests), the loop waits for a
  // CPU most of the time, and the verdict names that first; single-threaded it stays.
  const bool contended = r.verdict.headline->rule == "cpu_contention";
  if (!contended) {
    EXPECT_EQ(r.verdict.headline->rule, "cpu_single_thread") << rules_fired(r) << err.str();
  }
  EXPECT_NE(rules_fired(r).find("cpu_single_thread:"), std::string::npos) << rules_fired(r);
  EXPECT_NE(r.analysis.job.top_thread.find("sh:"), std::string::npos);
  EXPECT_TRUE(fs::exists(outcome.json_path));
  EXPECT_TRUE(fs::exists(outcome.html_path));
  const ParsedWatchCsv csv = parse_watch_csv(read_file(outcome.csv_path));
  EXPECT_TRUE(csv.errors.empty());
  EXPECT_EQ(csv.samples.size(), outcome.samples.size());
  EXPECT_NE(err.str().find(contended ? "\n  single-threaded CPU bound\n" : "verdict: single-threaded CPU bound"),
            std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("GPU sampling off: GPU columns empty"), std::string::npos);
  fs::remove_all(dir);
}

// A worker's own CPU seconds (utime + stime), as it wrote /proc/self/stat's fields 14 and 15.
double cpu_seconds_written(const fs::path& file) {
  std::istringstream fields(read_file(file));
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

TEST(WatchSession, OrphanedWorkersStayInTheJob) {
  // `( worker & )`: the subshell exits at once and its worker would go to init, out of the tree.
  // The worker does a fixed amount of work (not a fixed wall time, which a loaded machine turns
  // into almost no CPU), writes the CPU it used, idles so the watch samples it whole, then
  // exits; the command waits for the file. The job must count what the worker used.
  const auto dir = watch_test::scratch("session-orphan");
  const std::string used = (dir / "worker_cpu").string();
  WatchConfig config = config_in(dir, 0.25);
  const std::string worker = "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; "
                             "cut -d\" \" -f14,15 /proc/$$/stat > " + used + ".tmp; mv " + used + ".tmp " + used +
                             "; sleep 1.5";
  config.command = {"sh", "-c", "( sh -c '" + worker + "' & ); while [ ! -s " + used +
                                    " ]; do sleep 0.05; done; sleep 1"};
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  EXPECT_EQ(outcome.exit_code, 0);
  const double worker_cpu_s = cpu_seconds_written(used);
  ASSERT_GT(worker_cpu_s, 0.1) << "the worker's fixed work took almost no CPU: the test proves nothing";
  double job_cpu_s = 0;
  for (const auto& sample : outcome.samples) job_cpu_s = std::max(job_cpu_s, sample.job.cpu_s);
  // One clock tick of slack per process for /proc's rounding.
  EXPECT_GE(job_cpu_s, worker_cpu_s - 0.05)
      << "the orphaned worker's " << worker_cpu_s << " s of CPU were not counted\n" << err.str();
  fs::remove_all(dir);
}

TEST(WatchSession, DirectReaderIsStorageBoundOnItsDisk) {
  const auto dir = watch_test::scratch("session-disk");
  const fs::path file = dir / "data.bin";
  {
    std::ofstream out(file, std::ios::binary);
    const std::string block(1 << 20, 'd');
    for (int i = 0; i < 16; ++i) out << block;
  }
  struct stat info {};
  ASSERT_EQ(stat(file.c_str(), &info), 0);
  const auto disk = block_device_of(SysfsRoot("/"), major(info.st_dev), minor(info.st_dev));
  if (!disk) {
    fs::remove_all(dir);
    GTEST_SKIP() << dir << " is on no block device (tmpfs, overlay): nothing to read directly";
  }
  WatchConfig config = config_in(dir, 0.25);
  // O_DIRECT reads, never from the page cache, by eight readers at once: a queue of requests
  // that keeps the disk busy (one reader alone waits on latency: see the next test).
  const std::string reader =
      "while :; do dd if='" + file.string() + "' of=/dev/null bs=256k iflag=direct status=none || exit 3; done";
  config.command = {"timeout", "3", "sh", "-c", "for i in 1 2 3 4 5 6 7 8; do (" + reader + ") & done; wait"};
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  ASSERT_EQ(outcome.exit_code, 124) << "dd failed (O_DIRECT refused?): " << err.str();
  const WatchAnalysis& a = outcome.report.analysis;
  const auto it = std::find_if(a.disks.begin(), a.disks.end(), [&](const DiskStats& d) { return d.name == *disk; });
  ASSERT_NE(it, a.disks.end()) << "the job's disk " << *disk << " is not named:\n" << err.str();
  EXPECT_TRUE(it->job);
  EXPECT_NE(it->evidence.find("data.bin"), std::string::npos) << it->evidence;
  EXPECT_GT(it->read_mbs_while_reading, 10) << err.str();
  // A request always in flight keeps %util near 100 whatever the disk's speed; a much lower
  // figure means something else (the CPU of a loaded machine) paced the readers, and the rule
  // is right not to blame storage: say so with the figures rather than pass or fail blindly.
  if (it->util_median < 80 || it->aqu_median < 4) {
    fs::remove_all(dir);
    GTEST_SKIP() << *disk << " was only " << it->util_median << "% busy with " << it->aqu_median
                 << " requests in flight (r_await " << it->r_await_median_ms
                 << " ms): dd was not storage bound on this machine\n" << err.str();
  }
  ASSERT_TRUE(outcome.report.verdict.headline);
  EXPECT_EQ(outcome.report.verdict.headline->rule, "storage_bound") << rules_fired(outcome.report) << err.str();
  EXPECT_NE(outcome.report.verdict.headline->verdict.find(*disk), std::string::npos);
  fs::remove_all(dir);
}

// A file of `mib` MiB on a block device, or nothing (tmpfs, overlay): the disk's name.
std::optional<std::string> file_on_a_disk(const fs::path& file, int mib) {
  {
    std::ofstream out(file, std::ios::binary);
    const std::string block(1 << 20, 'd');
    for (int i = 0; i < mib; ++i) out << block;
  }
  struct stat info {};
  if (stat(file.c_str(), &info) != 0) return std::nullopt;
  return block_device_of(SysfsRoot("/"), major(info.st_dev), minor(info.st_dev));
}

TEST(WatchSession, OneDirectReaderWaitsOnStorageLatency) {
  const auto dir = watch_test::scratch("session-latency");
  const fs::path file = dir / "data.bin";
  const auto disk = file_on_a_disk(file, 256);
  if (!disk) {
    fs::remove_all(dir);
    GTEST_SKIP() << dir << " is on no block device (tmpfs, overlay): nothing to read directly";
  }
  WatchConfig config = config_in(dir, 0.25);
  config.state_looks_per_s = 40;  // 10 looks a sample at this short interval
  // One thread, one 4 KiB O_DIRECT read at a time: each waits for the disk. dd again when it
  // reaches the end (a disk of more than 22k reads a second at one in flight), under a shell
  // that only waits for it: its time off a CPU is a sleep in S, not I/O, and must not count as
  // blocked. One dd for the whole run where it can: a new thread's first looks may all find it
  // running, and until one finds it asleep its time off a CPU is not known to be a read's.
  config.command = {"timeout", "3", "sh", "-c",
                    "while :; do dd if='" + file.string() + "' of=/dev/null bs=4k iflag=direct status=none || exit 3; done"};
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  ASSERT_EQ(outcome.exit_code, 124) << "dd failed (O_DIRECT refused?): " << err.str();
  const WatchAnalysis& a = outcome.report.analysis;
  ASSERT_TRUE(a.job.io_blocked_mean) << err.str();
  EXPECT_NE(a.blocked_how.find("thread states"), std::string::npos) << a.blocked_how;
  const auto it = std::find_if(a.disks.begin(), a.disks.end(), [&](const DiskStats& d) { return d.name == *disk; });
  ASSERT_NE(it, a.disks.end()) << err.str();
  // Other readers of the same disk (a parallel ctest runs storage probes) make it saturated by
  // them: the rule then says storage bound, rightly; this test wants the disk to itself.
  if (it->read_mbs_median > 2 * a.job.read_mbs_median.value_or(0) + 5) {
    fs::remove_all(dir);
    GTEST_SKIP() << *disk << " read " << it->read_mbs_median << " MB/s, the job " << a.job.read_mbs_median.value_or(0)
                 << ": other readers shared the disk\n" << err.str();
  }
  EXPECT_LT(it->aqu_median, 2.5) << "one reader keeps about one read in flight";
  // The disk's own queue says how long one of dd's reads was in flight: the truth the thread
  // sampler is held to. A disk that answers so fast that dd spends most of its time on a CPU
  // (fast NVMe, or a loaded machine keeping dd from its CPU) is rightly not a latency wait:
  // say so with the figures rather than pass or fail blindly.
  if (it->aqu_median < 0.5) {
    fs::remove_all(dir);
    GTEST_SKIP() << *disk << " held one of dd's reads only " << 100 * it->aqu_median
                 << "% of the time\n" << err.str();
  }
  // Each read is in the disk's queue from its submission to its completion, longer than dd
  // sleeps on it: in a VM the submission's exit to the hypervisor and the wake-up count as dd's
  // CPU time (here blocked 42-46% of a core and on a CPU 40-44% with the disk holding a read
  // 78-80% of the time; beside a busy loop, 31-49%). Looks at the state alone saw dd in D for
  // 16-44% of the time.
  EXPECT_GT(*a.job.io_blocked_mean, 30 * it->aqu_median)
      << "dd was seen blocked " << *a.job.io_blocked_mean << "% of a core while " << *disk << " held one of its reads "
      << 100 * it->aqu_median << "% of the time\n" << err.str();
  ASSERT_TRUE(outcome.report.verdict.headline);
  EXPECT_NE(rules_fired(outcome.report).find("storage_latency: waiting on storage latency"), std::string::npos)
      << rules_fired(outcome.report) << err.str();
  // A machine that other work keeps busy is named first; otherwise the latency is the verdict.
  if (outcome.report.verdict.headline->rule != "cpu_contention") {
    EXPECT_EQ(outcome.report.verdict.headline->rule, "storage_latency") << rules_fired(outcome.report) << err.str();
  }
  fs::remove_all(dir);
}

TEST(WatchSession, ContentionNamesTheProgramHoldingTheCpus) {
  const auto dir = watch_test::scratch("session-contention");
  // Busy loops outside the job, under a name of their own, two per core: the job gets a fifth
  // of the CPUs' time and waits about 60% of the time it wants one. (One loop a core left it
  // waiting a third of the time, and a run in six measured under the rule's 25%.)
  fs::copy_file("/bin/sh", dir / "cpuhog");
  const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  std::vector<std::unique_ptr<watch_test::Child>> hogs;
  for (long i = 0; i < 2 * cores; ++i) {
    hogs.push_back(std::make_unique<watch_test::Child>("exec '" + (dir / "cpuhog").string() +
                                                       "' -c 'while :; do :; done'"));
  }
  WatchConfig config = config_in(dir, 0.25);
  config.command = {"timeout", "4", "sh", "-c", "while :; do :; done"};
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  hogs.clear();
  const WatchReport& r = outcome.report;
  ASSERT_TRUE(r.verdict.headline) << err.str();
  // The loops must have held the CPUs (about 4/5 of each core here) for there to be contention
  // to name. On a machine loaded by much else (other busy loops, a parallel ctest) the scheduler
  // can give the job its core and the loops half a core between them: then there is nothing
  // planted to find; say so with the figures.
  double hogs_percent = 0;
  for (const auto& other : r.analysis.other_processes) {
    if (other.command == "cpuhog") hogs_percent += other.cpu_percent;
  }
  if (hogs_percent < 100 && r.analysis.job.wait_share_median < 0.25) {
    fs::remove_all(dir);
    GTEST_SKIP() << "the busy loops held only " << hogs_percent << "% of a core, the job waited "
                 << 100 * r.analysis.job.wait_share_median << "% of its time\n" << err.str();
  }
  EXPECT_EQ(r.verdict.headline->rule, "cpu_contention") << rules_fired(r) << err.str();
  std::string figures;
  for (const auto& line : r.verdict.headline->figures) figures += line + "\n";
  EXPECT_NE(figures.find("cpuhog"), std::string::npos) << figures;
  EXPECT_GT(r.analysis.job.wait_share_median, 0.25) << err.str();
  fs::remove_all(dir);
}

TEST(WatchSession, PeriodicStallIsMeasuredFromPartlyIdleSamples) {
  const auto dir = watch_test::scratch("session-stall");
  WatchConfig config = config_in(dir, 0.1);
  // Busy 0.95 s, stalled 0.35 s: the stalls start and end inside samples.
  config.command = {"timeout", "7", "sh", "-c",
                    "while :; do timeout 0.95 sh -c 'while :; do :; done'; sleep 0.35; done"};
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  const Periodicity& p = outcome.report.analysis.periodic;
  ASSERT_TRUE(p.found) << p.episodes << " episodes\n" << err.str();
  // Starved of CPUs (a build beside the tests), starting each busy phase's processes takes
  // longer than the 0.35 s sleep: the true stall is then unknown.
  if (outcome.report.analysis.job.wait_share_median > 0.5) {
    fs::remove_all(dir);
    GTEST_SKIP() << "the job waited for a CPU " << 100 * outcome.report.analysis.job.wait_share_median
                 << "% of the time: its stalls are not the planted 0.35 s\n" << err.str();
  }
  EXPECT_NEAR(p.mean_idle_s, 0.35, 0.2 * 0.35) << err.str();
  EXPECT_NEAR(p.idle_share, 0.35 / p.period_s, 0.2 * 0.35 / p.period_s) << err.str();
  EXPECT_NEAR(p.period_s, 1.3, 0.2 * 1.3) << err.str();
  fs::remove_all(dir);
}

TEST(WatchSession, ACommandTooShortSaysWhatWasSeen) {
  const auto dir = watch_test::scratch("session-short");
  WatchConfig config = config_in(dir, 1);
  config.command = {"sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done"};
  // --results naming a run folder (of another host here): read, and said why not used.
  config.find_baseline = true;
  config.results_root = watch_test::fixture("baseline_run");
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  EXPECT_EQ(outcome.exit_code, 0);
  const WatchReport& r = outcome.report;
  ASSERT_TRUE(r.verdict.headline);
  EXPECT_EQ(r.verdict.headline->rule, "too_short");
  ASSERT_TRUE(r.analysis.usage);
  EXPECT_GT(r.analysis.usage->user_s + r.analysis.usage->system_s, 0.0);
  EXPECT_NE(err.str().find("the command ran "), std::string::npos) << err.str();
  EXPECT_EQ(read_file(outcome.html_path).find("Over time"), std::string::npos);
  EXPECT_NE(err.str().find("was measured on gpu-node"), std::string::npos) << err.str();
  fs::remove_all(dir);
}

TEST(WatchSession, PeriodicIdleShowsThePeriod) {
  const auto dir = watch_test::scratch("session-periodic");
  // Samples of 0.2 s: on a loaded 2-core machine (load ~17) a runnable thread can wait a whole
  // 0.1 s sample for a CPU, and /proc shows no demand for it until it runs, so 0.1 s samples saw
  // idle blips inside busy phases; 0.2 s windows see every busy phase.
  WatchConfig config = config_in(dir, 0.2);
  // Busy 0.6 s, asleep 0.6 s: a period of about 1.2 s. One bash process does both, timed by its
  // own clock and sleeping in a builtin read: a shell that forked `timeout` and `sleep` each
  // period showed, on a loaded machine, one-sample blips of demand (the fork waiting for a CPU)
  // inside its idle phases, extra irregular episodes that hid the period.
  config.command = {"timeout", "7", "bash", "-c",
                    "exec 3<> <(:); while :; do start=${EPOCHREALTIME/./}; "
                    "while (( ${EPOCHREALTIME/./} - start < 600000 )); do :; done; read -t 0.6 -u 3; done"};
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  const WatchAnalysis& a = outcome.report.analysis;
  ASSERT_TRUE(a.periodic.found) << a.periodic.episodes << " idle episodes\n" << err.str();
  EXPECT_NEAR(a.periodic.period_s, 1.2, 0.3) << err.str();
  EXPECT_NEAR(a.periodic.idle_share, 0.5, 0.25) << err.str();
  EXPECT_NE(rules_fired(outcome.report).find("periodic_idle"), std::string::npos) << rules_fired(outcome.report);
  fs::remove_all(dir);
}

TEST(WatchSession, PidThatExitsMidWatchEndsCleanly) {
  const auto dir = watch_test::scratch("session-pid");
  watch_test::Child child("sleep 1.5");
  WatchConfig config = config_in(dir, 0.2);
  config.pid = child.pid();
  config.duration_s = 20;
  std::ostringstream err;
  const auto start = std::chrono::steady_clock::now();
  const WatchOutcome outcome = run_watch(config, err);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_EQ(outcome.report.mode, "pid");
  EXPECT_EQ(outcome.report.stopped_by, "job_exited");
  EXPECT_NE(outcome.report.job_ending.find("exited"), std::string::npos);
  EXPECT_GE(outcome.samples.size(), 3u);
  EXPECT_TRUE(fs::exists(outcome.json_path));
  fs::remove_all(dir);
}

TEST(WatchSession, DurationEndsTheWatchNotTheCommand) {
  const auto dir = watch_test::scratch("session-duration");
  WatchConfig config = config_in(dir, 0.2);
  config.command = {"sh", "-c", "sleep 1.5; exit 5"};
  config.duration_s = 0.5;
  std::ostringstream err;
  const WatchOutcome outcome = run_watch(config, err);
  EXPECT_EQ(outcome.report.stopped_by, "duration");
  EXPECT_EQ(outcome.exit_code, 5) << "the command ran on and its code is returned";
  EXPECT_NE(err.str().find("waiting for pid"), std::string::npos);
  fs::remove_all(dir);
}

TEST(WatchSession, MissingPidIsAClearError) {
  const auto dir = watch_test::scratch("session-nopid");
  WatchConfig config = config_in(dir, 1);
  config.pid = 999999999;
  std::ostringstream err;
  try {
    run_watch(config, err);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--pid 999999999: no such process");
  }
  EXPECT_FALSE(fs::exists(config.out_dir)) << "nothing written for bad input";
  fs::remove_all(dir);
}

TEST(WatchSession, MissingCommandIsAClearError) {
  const auto dir = watch_test::scratch("session-nocmd");
  WatchConfig config = config_in(dir, 1);
  config.command = {"pipecheck-no-such-command"};
  std::ostringstream err;
  try {
    run_watch(config, err);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "watch: command 'pipecheck-no-such-command' not found in PATH");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pipecheck
