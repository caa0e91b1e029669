// The conditions around a probe: /proc/stat arithmetic on recorded snapshots, governors and
// clocks from recorded sysfs trees, the warnings of the quiet-machine check, and a real busy
// process named while the "probe" sleeps.
#include "core/run_conditions.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>

#include "core/file_io.hpp"

namespace pipecheck {
namespace {

const std::string kData = std::string(PIPECHECK_TEST_DATA) + "/conditions/";

ConditionsSnapshot recorded(const std::string& name, double at_seconds, double self_cpu) {
  ConditionsSnapshot snapshot;
  snapshot.when = std::chrono::steady_clock::time_point(std::chrono::milliseconds(static_cast<long>(at_seconds * 1000)));
  snapshot.cpu = parse_cpu_ticks(read_file(kData + name + "/proc/stat"));
  snapshot.self_cpu_seconds = self_cpu;
  return snapshot;
}

TEST(RunConditions, ParsesTheAggregateCpuLine) {
  const auto ticks = parse_cpu_ticks(read_file(kData + "before/proc/stat"));
  ASSERT_TRUE(ticks);
  EXPECT_EQ(ticks->user, 506954u);
  EXPECT_EQ(ticks->system, 86054u);
  EXPECT_EQ(ticks->idle, 55698u);
  EXPECT_EQ(ticks->iowait, 2404u);
  EXPECT_EQ(ticks->steal, 1307u);
  EXPECT_EQ(ticks->busy(), 506954u + 86054u + 317u);
  EXPECT_FALSE(parse_cpu_ticks("cpu0 1 2 3 4 5 6 7 8\n"));  // per-CPU lines are not the aggregate
  EXPECT_FALSE(parse_cpu_ticks("cpu  1 2 3\n"));
  EXPECT_FALSE(parse_cpu_ticks(""));
}

TEST(RunConditions, OtherProcessesAreTheMachineLessTheProbeAndUs) {
  // 202 busy ticks (2.02 CPU-seconds) in 1 s; the probe used 0.5 s, the driver 0.02 s.
  const RunConditions c = conditions_between(recorded("before", 0, 1.00), recorded("after", 1, 1.02), 0.5, {}, 100);
  EXPECT_NEAR(c.seconds, 1.0, 1e-9);
  EXPECT_NEAR(c.other_cpu_percent, 150.0, 1e-6);
  EXPECT_NEAR(c.probe_cpu_percent, 50.0, 1e-6);
  EXPECT_NEAR(c.steal_percent, 0.0, 1e-9);
  // A probe that used all of it leaves nothing to others (never below zero).
  EXPECT_DOUBLE_EQ(conditions_between(recorded("before", 0, 1), recorded("after", 1, 1), 2.1, {}, 100).other_cpu_percent, 0.0);
}

TEST(RunConditions, StealAndIowaitAreSharesOfAllTicks) {
  ConditionsSnapshot a, b;
  b.when = a.when + std::chrono::seconds(2);
  a.cpu = parse_cpu_ticks("cpu  100 0 0 100 0 0 0 0\n");
  b.cpu = parse_cpu_ticks("cpu  150 0 10 200 20 0 0 20\n");  // 200 ticks: 20 iowait, 20 steal
  const RunConditions c = conditions_between(a, b, 0, {}, 100);
  EXPECT_NEAR(c.steal_percent, 10.0, 1e-9);
  EXPECT_NEAR(c.iowait_percent, 10.0, 1e-9);
  EXPECT_NEAR(c.other_cpu_percent, 30.0, 1e-9);  // 60 busy ticks = 0.6 s over 2 s
}

TEST(RunConditions, GovernorsClocksAndLoadFromRecordedTrees) {
  RunConditions mixed;
  add_machine_facts(mixed, SysfsRoot(kData + "mixed_governors"), 3);
  EXPECT_EQ(mixed.governor, "performance (2 CPUs), powersave (1 CPU)");
  EXPECT_FALSE(mixed.governor_performance);
  EXPECT_DOUBLE_EQ(*mixed.clock_mhz_min, 1200);
  EXPECT_DOUBLE_EQ(*mixed.clock_mhz_max, 3100);
  EXPECT_EQ(mixed.usable_cpus, 3);
  RunConditions vm;
  add_machine_facts(vm, SysfsRoot(kData + "no_cpufreq"), 2);
  EXPECT_EQ(vm.governor.rfind("unknown: no cpufreq governor in sysfs", 0), 0u) << vm.governor;
  EXPECT_FALSE(vm.clock_mhz_min);
  EXPECT_FALSE(vm.clocks_note.empty());
  EXPECT_DOUBLE_EQ(*read_loadavg_1m(SysfsRoot(kData + "after")), 15.65);
  EXPECT_FALSE(read_loadavg_1m(SysfsRoot(kData + "no_cpufreq")));
}

TEST(RunConditions, QuietCheckSaysWhatIsWrong) {
  QuietCheck check;
  check.conditions.seconds = 1;
  check.conditions.governor = "performance";
  check.conditions.governor_performance = true;
  EXPECT_TRUE(quiet_check_warnings(check).empty());
  check.conditions.other_cpu_percent = 187;
  check.conditions.top_consumers = {{812, "stress-ng", 98}, {77, "cc1plus", 89}};
  check.conditions.governor = "powersave (2 CPUs)";
  check.conditions.governor_performance = false;
  check.conditions.gpu_processes = {{4411, "python3", "0000:17:00.0", 1 << 30}};
  const auto lines = quiet_check_warnings(check);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("187% of one core"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("stress-ng (pid 812) 98%"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("GPU 0000:17:00.0 is in use by python3 (pid 4411)"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("powersave (2 CPUs), not performance"), std::string::npos) << lines[2];
  check.conditions = {};
  check.conditions.governor = "unknown: no cpufreq governor in sysfs (a virtual machine, or a kernel without cpufreq)";
  ASSERT_EQ(quiet_check_warnings(check).size(), 1u);
  EXPECT_NE(quiet_check_warnings(check)[0].find("governor unknown"), std::string::npos);
}

TEST(RunConditions, DescribeLoadNamesConsumersAndGpuUsers) {
  RunConditions c;
  c.other_cpu_percent = 187.4;
  c.top_consumers = {{812, "stress-ng", 98}};
  c.loadavg_1m = 3.43;
  c.usable_cpus = 2;
  c.gpu_processes = {{4411, "python3", "0000:17:00.0", 0}, {99, "", "0000:2a:00.0", 0}};
  EXPECT_EQ(describe_load(c),
            "other processes used 187% of one core (stress-ng (pid 812) 98%); load average 3.4 on 2 CPUs; "
            "GPU 0000:17:00.0 held by python3 (pid 4411); GPU 0000:2a:00.0 held by pid 99");
}

// A process that spins until it has used `cpu_seconds` of CPU (however long that takes on a
// loaded machine), says so on `ready`, then sleeps until killed.
pid_t start_busy_process(double cpu_seconds, int ready) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  volatile unsigned long spin = 0;
  while (static_cast<double>(std::clock()) / CLOCKS_PER_SEC < cpu_seconds) spin = spin + 1;
  const char done = 1;
  (void)!write(ready, &done, 1);
  while (true) pause();
}

TEST(RunConditions, ABusyProcessIsCountedAndNamed) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const ConditionsSnapshot before = take_conditions_snapshot();
  const pid_t busy = start_busy_process(0.5, ready[1]);
  ASSERT_GT(busy, 0);
  char done = 0;
  ASSERT_EQ(read(ready[0], &done, 1), 1);
  const ConditionsSnapshot after = take_conditions_snapshot();
  kill(busy, SIGKILL);
  waitpid(busy, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  const RunConditions c = conditions_between(before, after, 0.0, {static_cast<int>(getpid())}, sysconf(_SC_CLK_TCK));
  // Its 0.5 s of CPU is in the machine's busy time (ticks are 10 ms per CPU: allow a few).
  EXPECT_GE(c.other_cpu_percent * c.seconds / 100, 0.45) << describe_load(c);
  bool named = false;
  for (const auto& p : c.top_consumers) named = named || p.pid == busy;
  EXPECT_TRUE(named) << describe_load(c);
}

}  // namespace
}  // namespace pipecheck
