// The process-tree sampler: /proc parsers on recorded lines, and real process trees on this
// machine (a shell with sleeping children, a busy loop's CPU demand).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

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
  EXPECT_EQ(sanitize_name("a,b|c\"d\\e\x1b[31m"), "a_b_c_d_e_[31m");
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

}  // namespace
}  // namespace pipecheck
