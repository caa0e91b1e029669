// Child processes that exit, crash, hang or cannot start: each becomes a described result.
#include "core/process_runner.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "core/file_io.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

class ProcessRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-proc-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ProcessResult run(std::vector<std::string> argv, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    ProcessSpec spec;
    spec.argv = std::move(argv);
    spec.stdout_path = dir_ / "out";
    spec.stderr_path = dir_ / "err";
    spec.time_limit = limit;
    spec.kill_grace = std::chrono::milliseconds(300);
    return run_process(spec);
  }

  fs::path dir_;
};

TEST_F(ProcessRunnerTest, CapturesOutputAndExitCode) {
  const auto result = run({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(result.ending, ProcessResult::Ending::exited);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.describe(), "exit code 3");
  EXPECT_EQ(read_file(dir_ / "out"), "out\n");
  EXPECT_EQ(read_file(dir_ / "err"), "err\n");
}

TEST_F(ProcessRunnerTest, CrashIsReportedWithItsSignal) {
  const auto result = run({"/bin/sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(result.ending, ProcessResult::Ending::signaled);
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_NE(result.describe().find("signal 11"), std::string::npos);
}

TEST_F(ProcessRunnerTest, HangIsKilledWithItsChildren) {
  const fs::path marker = dir_ / "grandchild.pid";
  // The test needs the grandchild started before the limit strikes; on a loaded machine the
  // shell may not even run within 300 ms (the marker is then missing: nothing was tested), so
  // the limit doubles until the shell got that far. The hang is killed at whatever limit.
  ProcessResult result;
  for (auto limit = std::chrono::milliseconds(300); limit <= std::chrono::seconds(20); limit *= 2) {
    result = run({"/bin/sh", "-c", "sleep 60 & echo $! > " + marker.string() + ".tmp; mv " + marker.string() +
                                       ".tmp " + marker.string() + "; sleep 60"},
                 limit);
    EXPECT_EQ(result.ending, ProcessResult::Ending::timed_out);
    EXPECT_LT(result.seconds, std::chrono::duration<double>(limit).count() + 10.0);
    if (fs::exists(marker)) break;
  }
  ASSERT_TRUE(fs::exists(marker)) << "the shell never started its grandchild, even within 20 s";
  EXPECT_NE(result.describe().find("timed out"), std::string::npos);
  const pid_t grandchild = std::stoi(read_file(marker));
  // The whole process group was killed: the grandchild is gone (or a zombie about to be reaped).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const bool alive = kill(grandchild, 0) == 0;
  if (alive) {
    const std::string state = read_file("/proc/" + std::to_string(grandchild) + "/stat");
    EXPECT_NE(state.find(") Z"), std::string::npos) << "grandchild still running: " << state;
  }
}

TEST_F(ProcessRunnerTest, MissingExecutableFailsToStart) {
  const auto result = run({(dir_ / "no-such-probe").string()});
  EXPECT_EQ(result.ending, ProcessResult::Ending::failed_to_start);
  EXPECT_NE(result.error.find("No such file"), std::string::npos) << result.error;
}

// Gone, or a zombie waiting for init: not running any more.
bool ended(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  try {
    const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    return stat.find(") Z") != std::string::npos || stat.find(") X") != std::string::npos;
  } catch (const std::exception&) {
    return true;
  }
}

TEST_F(ProcessRunnerTest, StopRequestIsAnInterruptionNotATimeout) {
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    request_child_stop();
  });
  const auto result = run({"/bin/sleep", "30"});
  stopper.join();
  EXPECT_EQ(result.ending, ProcessResult::Ending::interrupted);
  EXPECT_EQ(result.describe().rfind("stopped by SIGINT or SIGTERM after", 0), 0u) << result.describe();
  EXPECT_LT(result.seconds, 10.0);
  reset_child_stop();
  EXPECT_TRUE(run({"/bin/true"}).ok());  // the request does not outlive its reset
}

TEST_F(ProcessRunnerTest, ChildDiesWithTheDriver) {
  // A driver process starts a probe that would sleep a minute, then is killed with -9.
  const fs::path marker = dir_ / "probe.pid";
  const pid_t driver = fork();
  ASSERT_GE(driver, 0);
  if (driver == 0) {
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", "echo $$ > " + marker.string() + "; exec sleep 60"};
    spec.stdout_path = dir_ / "out";
    spec.stderr_path = dir_ / "err";
    run_process(spec);
    _exit(0);
  }
  pid_t probe = 0;
  for (int i = 0; i < 500 && probe == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    try {
      const std::string text = read_file(marker);
      if (!text.empty() && text.back() == '\n') probe = std::stoi(text);
    } catch (const std::exception&) {
    }
  }
  ASSERT_GT(probe, 0) << "the probe never started";
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // exec'd into sleep
  kill(driver, SIGKILL);
  waitpid(driver, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 300 && !gone; ++i) {
    gone = ended(probe);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the probe outlived its driver";
  if (!gone) kill(probe, SIGKILL);
}

TEST_F(ProcessRunnerTest, SuccessIsOk) {
  const auto result = run({"/bin/true"});
  EXPECT_TRUE(result.ok());
}

TEST_F(ProcessRunnerTest, CountsTheChildsCpuTime) {
  // A busy shell loop: its CPU time is the child's own, whatever else the machine runs.
  const auto busy = run({"/bin/sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"});
  ASSERT_TRUE(busy.ok()) << busy.describe();
  EXPECT_GT(busy.cpu_seconds, 0.05);
  const auto idle = run({"/bin/sleep", "0.2"});
  EXPECT_LT(idle.cpu_seconds, 0.05);
}

}  // namespace
}  // namespace pipecheck
