// Other processes' CPU: /proc/PID/stat parsing (odd command names), the process tree, and a
// real busy child named with its share of a core.
#include "core/top_processes.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace pipecheck {
namespace {

TEST(TopProcesses, StatLineWithParenthesesAndSpacesInTheName) {
  ProcessTimes t;
  ASSERT_TRUE(parse_process_stat(
      "812 (my (odd) name) R 1 812 812 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0 12345 1000 10 "
      "18446744073709551615",
      t));
  EXPECT_EQ(t.pid, 812);
  EXPECT_EQ(t.ppid, 1);
  EXPECT_EQ(t.command, "my (odd) name");
  EXPECT_EQ(t.cpu_ticks, 300u);
  EXPECT_EQ(t.start_ticks, 12345u);
  EXPECT_FALSE(parse_process_stat("812 (short) R 1 2", t));
  EXPECT_FALSE(parse_process_stat("not a stat line", t));
}

ProcessTimes times(int pid, int ppid, unsigned long long start, unsigned long long cpu, const char* command) {
  return {pid, ppid, start, cpu, command};
}

TEST(TopProcesses, BusiestFirstExcludedLeftOutReusedPidCountedFromItsStart) {
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  const auto t = [&](double seconds) { return static_cast<unsigned long long>(seconds * tick); };
  ProcessSnapshot before{{10, times(10, 1, 5, t(100), "busy")},
                         {11, times(11, 1, 5, t(50), "half")},
                         {12, times(12, 1, 5, t(1), "probe")},
                         {13, times(13, 1, 5, t(900), "old")}};
  ProcessSnapshot after{{10, times(10, 1, 5, t(102), "busy")},
                        {11, times(11, 1, 5, t(51), "half")},
                        {12, times(12, 1, 5, t(3), "probe")},
                        {13, times(13, 1, 7, t(0.5), "reused")}};
  const auto top = top_cpu_consumers(before, after, 2.0, {12});
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].command, "busy");
  EXPECT_NEAR(top[0].cpu_percent, 100, 1);
  EXPECT_EQ(top[1].command, "half");
  EXPECT_NEAR(top[1].cpu_percent, 50, 1);
  EXPECT_EQ(top[2].command, "reused");  // a new process: its own 0.5 s, not 900 s of the old one
  EXPECT_NEAR(top[2].cpu_percent, 25, 1);
  EXPECT_EQ(describe_consumers({top[0]}), "busy (pid 10) 100%");
  EXPECT_EQ(describe_consumers({}), "none");
}

TEST(TopProcesses, TreeHoldsDescendants) {
  ProcessSnapshot s{{1, times(1, 0, 1, 0, "init")},   {20, times(20, 1, 1, 0, "probe")},
                    {21, times(21, 20, 1, 0, "a")},   {22, times(22, 21, 1, 0, "b")},
                    {30, times(30, 1, 1, 0, "other")}};
  EXPECT_EQ(process_tree(s, 20), (std::set<int>{20, 21, 22}));
}

TEST(TopProcesses, RealBusyChildIsNamed) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    prctl(PR_SET_NAME, "pc-busy-loop");
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    volatile unsigned long spin = 0;
    while (true) spin = spin + 1;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto before = snapshot_processes();
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  const auto after = snapshot_processes();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  const auto top = top_cpu_consumers(before, after, 0.7, process_tree(after, getpid()), 50, 0.0);
  bool excluded_self = true;
  for (const auto& c : top) excluded_self = excluded_self && c.pid != child && c.pid != getpid();
  EXPECT_TRUE(excluded_self) << "the caller's own tree must be left out";
  const auto all = top_cpu_consumers(before, after, 0.7, {}, 500, 0.0);
  const auto found = std::find_if(all.begin(), all.end(), [&](const ProcessCpu& c) { return c.pid == child; });
  ASSERT_NE(found, all.end()) << describe_consumers(all);
  EXPECT_EQ(found->command, "pc-busy-loop");
  // A busy loop on a shared 2-CPU machine still gets a good share of a core.
  EXPECT_GT(found->cpu_percent, 20) << describe_consumers(all);
  EXPECT_LE(found->cpu_percent, 105);
}

}  // namespace
}  // namespace pipecheck
