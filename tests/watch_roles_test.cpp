// Roles in a job: the training process and its loader's workers, from the process tree's shape and
// what the threads do (watch/job_roles.cpp), on hand-made records, on /proc snapshots recorded
// from real jobs (tests/data/watch/roles_proc, made by its record.py), and the rules on watch.csv
// files recorded by `pipecheck watch` over the torchvision jobs of scripts/compare/plant.
#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/file_io.hpp"
#include "tests/watch_test_support.hpp"
#include "watch/job_roles.hpp"
#include "watch/process_tree.hpp"
#include "watch/watch_csv.hpp"
#include "watch/watch_render_text.hpp"
#include "watch/watch_rules.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

TEST(WatchRoles, SleepKindFromTheSyscallFile) {
  const auto line = [](long number) { return std::to_string(number) + " 0x0 0x0 0x7ffd1b879bb0 0x0 0x0 0x0 0x7ffd 0x7f46\n"; };
  EXPECT_EQ(sleep_kind_of(line(SYS_clock_nanosleep)), SleepKind::timed);
  EXPECT_EQ(sleep_kind_of(line(SYS_wait4)), SleepKind::reaping);
  EXPECT_EQ(sleep_kind_of(line(SYS_waitid)), SleepKind::reaping);
  EXPECT_EQ(sleep_kind_of(line(SYS_rt_sigsuspend)), SleepKind::reaping) << "GNU timeout waits for its SIGCHLD";
  EXPECT_EQ(sleep_kind_of(line(SYS_futex)), SleepKind::other);
  EXPECT_EQ(sleep_kind_of(line(SYS_read)), SleepKind::other);
  EXPECT_EQ(sleep_kind_of("running\n"), SleepKind::unknown);
  EXPECT_EQ(sleep_kind_of(""), SleepKind::unknown);
}

TEST(WatchRoles, TimeOffACpuIsSplitByTheKindOfSleep) {
  Looks looks;
  for (int i = 0; i < 6; ++i) looks.count('S', SleepKind::other);
  for (int i = 0; i < 2; ++i) looks.count('S', SleepKind::timed);
  looks.count('D');
  looks.count('R');
  // On a CPU or runnable 0.1 s of 1 s: 0.9 s off a CPU over 9 looks asleep.
  const ThreadTime time = thread_time(looks, Looks{}, 0.1, 1.0);
  EXPECT_NEAR(time.waiting_pct, 60.0, 1e-9);
  EXPECT_NEAR(time.sleep_pct, 20.0, 1e-9);
  EXPECT_NEAR(time.io_pct, 10.0, 1e-9);
  EXPECT_NEAR(time.reaping_pct, 0.0, 1e-9);
  EXPECT_TRUE(time.syscalls_read);
}

ProcWatch process(int pid, int ppid, double cpu, double top_demand, ThreadTime main = {}) {
  ProcWatch p;
  p.pid = pid;
  p.ppid = ppid;
  p.comm = "prog";
  p.cpu_pct = cpu;
  p.top_thread_demand_pct = top_demand;
  p.top_thread = "prog:" + std::to_string(pid);
  main.name = p.top_thread;
  p.main_thread = main;
  return p;
}

ThreadTime waiting(double pct) {
  ThreadTime t;
  t.waiting_pct = pct;
  t.syscalls_read = true;
  return t;
}

ThreadTime reaping(double pct) {
  ThreadTime t;
  t.reaping_pct = pct;
  t.syscalls_read = true;
  return t;
}

TEST(WatchRoles, TheParentOfWorkerProcessesIsTheTrainingProcess) {
  // A launcher (sh, in wait4 for its child) -> the training process -> two workers.
  const RolesWatch roles = job_roles({process(10, 1, 0, 0, reaping(100)), process(11, 10, 8, 9, waiting(90)),
                                      process(12, 11, 97, 99), process(13, 11, 60, 62)},
                                     90);
  ASSERT_TRUE(roles.found);
  EXPECT_EQ(roles.trainer_pid, 11);
  EXPECT_EQ(roles.workers, 2);
  EXPECT_EQ(roles.workers_saturated, 1);
  EXPECT_NEAR(roles.workers_demand_pct, 80.5, 1e-9);
  EXPECT_NEAR(roles.workers_cpu_pct, 157, 1e-9);
  EXPECT_EQ(roles.busiest_worker, "prog:12");
  EXPECT_NEAR(roles.loop.waiting_pct, 90, 1e-9);
}

TEST(WatchRoles, ALauncherWaitingForItsOnlyChildIsNoTrainingProcess) {
  // sh -c 'prog; ...': the shell sleeps in wait4 while its child computes. Asleep parent, busy
  // child: the shape of an input-bound job, but nobody waits on a loader.
  const RolesWatch roles = job_roles({process(10, 1, 0, 0, reaping(100)), process(11, 10, 99, 100)}, 90);
  EXPECT_FALSE(roles.found);
  EXPECT_EQ(roles.trainers, 0);
}

TEST(WatchRoles, OfSeveralTrainingProcessesTheBusiestIsJudged) {
  // torchrun -> two ranks, each with a worker.
  const RolesWatch roles =
      job_roles({process(10, 1, 1, 1, reaping(99)), process(20, 10, 30, 30, waiting(70)), process(21, 20, 90, 95),
                 process(30, 10, 30, 30, waiting(70)), process(31, 30, 20, 25)},
                90);
  ASSERT_TRUE(roles.found);
  EXPECT_EQ(roles.trainers, 2);
  EXPECT_EQ(roles.trainer_pid, 20);
}

TEST(WatchRoles, AProcessWithoutChildrenHasNoRoles) {
  EXPECT_FALSE(job_roles({process(10, 1, 100, 100)}, 90).found);
  EXPECT_FALSE(job_roles({}, 90).found);
}

// ---- recorded /proc snapshots ----------------------------------------------------------------

double elapsed_of(const fs::path& snapshot) { return std::stod(read_file(snapshot / "elapsed_s")); }

// Replays a recording: the first snapshot primes, the ones between are looked at, the last is
// sampled; the roles of that sample.
RolesWatch replay(const std::string& name, int root_pid) {
  const fs::path recording = watch_test::fixture("roles_proc") / name;
  std::vector<fs::path> snapshots;
  for (const auto& entry : fs::directory_iterator(recording)) {
    if (entry.is_directory()) snapshots.push_back(entry.path());
  }
  std::sort(snapshots.begin(), snapshots.end());
  EXPECT_GE(snapshots.size(), 3u) << recording;
  const fs::path scratch = watch_test::scratch("roles-" + name);
  const auto show = [&](const fs::path& snapshot) {
    fs::remove_all(scratch / "proc");
    fs::copy(snapshot / "proc", scratch / "proc", fs::copy_options::recursive);
  };
  show(snapshots[0]);  // the sampler reads the root's start time when made
  ProcessTreeSampler sampler(SysfsRoot(scratch), root_pid, busy_thread_demand_pct());
  const auto at = [](double s) {
    return ProcessTreeSampler::Clock::time_point() +
           std::chrono::duration_cast<ProcessTreeSampler::Clock::duration>(std::chrono::duration<double>(s));
  };
  ProcessTreeReading reading;
  for (std::size_t i = 0; i < snapshots.size(); ++i) {
    show(snapshots[i]);
    if (i == 0 || i + 1 == snapshots.size()) {
      reading = sampler.sample(at(100 + elapsed_of(snapshots[i])));
    } else {
      sampler.look_at_thread_states();
    }
  }
  fs::remove_all(scratch);
  return job_roles(reading.procs, saturated_thread_demand_pct());
}

int root_of(const std::string& name) {
  return std::stoi(read_file(watch_test::fixture("roles_proc") / name / "root_pid"));
}

TEST(WatchRoles, RecordedLoaderBoundJobTheLoopWaitsOnItsSaturatedWorker) {
  const RolesWatch roles = replay("loader_bound", root_of("loader_bound"));
  ASSERT_TRUE(roles.found);
  EXPECT_EQ(roles.trainer_pid, root_of("loader_bound"));
  EXPECT_EQ(roles.workers, 1);
  EXPECT_GE(roles.workers_demand_pct, 90) << roles.busiest_worker;
  EXPECT_TRUE(roles.loop.syscalls_read);
  EXPECT_GE(roles.loop.waiting_pct, 70);
  EXPECT_LE(roles.loop.demand_pct, 30);
}

TEST(WatchRoles, RecordedStepBoundJobTheLoopComputesItsWorkerIdles) {
  const RolesWatch roles = replay("step_bound", root_of("step_bound"));
  ASSERT_TRUE(roles.found);
  EXPECT_EQ(roles.workers, 1);
  EXPECT_LE(roles.workers_demand_pct, 30);
  EXPECT_GE(roles.loop.demand_pct, 90);
  EXPECT_LE(roles.loop.waiting_pct, 10);
}

// A shell waiting in wait4 for a busy program: asleep parent, saturated child. Not an input-bound
// job: the parent is a launcher, and no training process is found.
TEST(WatchRoles, RecordedShellOverABusyProgramIsNotALoader) {
  const RolesWatch roles = replay("launcher", root_of("launcher"));
  EXPECT_FALSE(roles.found) << roles.trainer;
}

// GNU timeout over a busy loop: the launcher waits for its child's SIGCHLD in rt_sigsuspend, not
// in wait4. Not a training process either.
TEST(WatchRoles, RecordedTimeoutOverABusyLoopIsNotALoader) {
  const RolesWatch roles = replay("timeout_launcher", root_of("timeout_launcher"));
  EXPECT_FALSE(roles.found) << roles.trainer;
}

// ---- the rules on recorded watches --------------------------------------------------------------

WatchVerdict judge_recorded(const std::string& name, WatchAnalysis* out = nullptr) {
  const ParsedWatchCsv parsed = parse_watch_csv(read_file(watch_test::fixture(name)));
  EXPECT_TRUE(parsed.errors.empty()) << name << ": " << (parsed.errors.empty() ? "" : parsed.errors.front());
  const WatchAnalysis analysis = analyze_watch(parsed.samples, nullptr, watch_analysis_options());
  if (out) *out = analysis;
  return judge_watch(analysis);
}

std::string headline(const WatchVerdict& v) { return v.headline ? v.headline->rule : "(none)"; }

bool fired(const WatchVerdict& v, const std::string& rule) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const WatchFinding& f) { return f.rule == rule; });
}

std::string text_of(const WatchFinding& f) {
  std::string text = f.verdict + "\n" + f.advice + "\n";
  for (const auto& line : f.figures) text += line + "\n";
  return text;
}

TEST(WatchRoles, LoaderBoundTorchvisionJobIsInputBound) {
  for (const char* name : {"roles_loader_bound.csv", "roles_loader_bound_busy_loop.csv"}) {
    WatchAnalysis a;
    const WatchVerdict v = judge_recorded(name, &a);
    ASSERT_EQ(headline(v), "input_loader_bound") << name;
    const std::string text = text_of(*v.headline);
    EXPECT_NE(text.find("the single loader worker is saturated and the training loop waits on it"), std::string::npos)
        << text;
    EXPECT_NE(text.find("num_workers"), std::string::npos) << text;
    EXPECT_FALSE(fired(v, "cpu_single_thread")) << name << ": the roles say which thread is busy, and why";
    EXPECT_FALSE(fired(v, "step_bound")) << name;
  }
}

TEST(WatchRoles, StepBoundTorchvisionJobIsNotInputBound) {
  for (const char* name : {"roles_step_bound.csv", "roles_step_bound_busy_loop.csv"}) {
    const WatchVerdict v = judge_recorded(name);
    ASSERT_EQ(headline(v), "step_bound") << name;
    EXPECT_NE(text_of(*v.headline).find("the input pipeline is not the problem"), std::string::npos);
    EXPECT_FALSE(fired(v, "input_loader_bound")) << name;
  }
}

TEST(WatchRoles, TheTerminalSummaryShowsBothRoles) {
  WatchReport report;
  report.analysis = analyze_watch(
      parse_watch_csv(read_file(watch_test::fixture("roles_loader_bound.csv"))).samples, nullptr, watch_analysis_options());
  report.verdict = judge_watch(report.analysis);
  const std::string text = render_watch_text(report);
  EXPECT_NE(text.find("roles (means): training process python3:"), std::string::npos) << text;
  EXPECT_NE(text.find("loader 1 worker at "), std::string::npos) << text;
}

TEST(WatchRoles, RoleRowsRoundTripThroughTheCsv) {
  WatchSample s;
  s.utc_time = "2026-12-02T09:00:01.000Z";
  s.elapsed_s = 1;
  s.roles.found = true;
  s.roles.trainer_pid = 4242;
  s.roles.trainer = "python3:4242";
  s.roles.trainers = 1;
  s.roles.trainer_cpu_pct = 12.5;
  s.roles.loop = waiting(87.5);
  s.roles.loop.name = "python3:4242";
  s.roles.loop.sleep_pct = 1.5;
  s.roles.workers = 3;
  s.roles.workers_cpu_pct = 290;
  s.roles.workers_saturated = 2;
  s.roles.workers_demand_pct = 97.5;
  s.roles.busiest_worker = "pt_data_worker:4250";
  s.roles.busiest_worker_demand_pct = 100;
  const ParsedWatchCsv parsed = parse_watch_csv(watch_csv_header() + "\n" + format_watch_sample(s));
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  ASSERT_EQ(parsed.samples.size(), 1u);
  const RolesWatch& r = parsed.samples[0].roles;
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.trainer, "python3:4242");
  EXPECT_EQ(r.loop.name, "python3:4242");
  EXPECT_DOUBLE_EQ(r.loop.waiting_pct, 87.5);
  EXPECT_DOUBLE_EQ(r.loop.sleep_pct, 1.5);
  EXPECT_TRUE(r.loop.syscalls_read);
  EXPECT_EQ(r.workers, 3);
  EXPECT_EQ(r.workers_saturated, 2);
  EXPECT_DOUBLE_EQ(r.workers_demand_pct, 97.5);
  EXPECT_EQ(r.busiest_worker, "pt_data_worker:4250");
}

}  // namespace
}  // namespace pipecheck
