// SIGINT/SIGTERM/SIGHUP routing for stress and watch: installed while the object lives, restored
// after, and a signal the launcher ignored stays ignored. SIGHUP (a closed terminal or ssh session)
// is an interruption like the others: `stress` writes its summary.json and exits 130, `watch` ends
// the watched job's tree and writes watch.json (before, SIGHUP killed both outright).
#include "app/stop_signals.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/tool_runner.hpp"

namespace pipecheck {
namespace {

void handler(int, siginfo_t*, void*) {}

struct sigaction current(int signal) {
  struct sigaction action {};
  sigaction(signal, nullptr, &action);
  return action;
}

bool routed_to_handler(int signal) {
  const struct sigaction action = current(signal);
  return (action.sa_flags & SA_SIGINFO) && action.sa_sigaction == handler;
}

TEST(StopSignals, RoutesWhileAliveAndRestoresAfter) {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
  {
    const StopSignals signals(handler);
    EXPECT_TRUE(routed_to_handler(SIGINT));
    EXPECT_TRUE(routed_to_handler(SIGTERM));
    EXPECT_TRUE(routed_to_handler(SIGHUP));
  }
  EXPECT_EQ(current(SIGINT).sa_handler, SIG_DFL);
  EXPECT_EQ(current(SIGTERM).sa_handler, SIG_DFL);
  EXPECT_EQ(current(SIGHUP).sa_handler, SIG_DFL);
}

TEST(StopSignals, AnIgnoredSignalStaysIgnored) {
  // `nohup` or `cmd &` in a script: SIGINT ignored, and the commands we start must inherit that.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGTERM, SIG_DFL);
  {
    const StopSignals signals(handler);
    EXPECT_EQ(current(SIGINT).sa_handler, SIG_IGN);
    EXPECT_TRUE(routed_to_handler(SIGTERM));
  }
  EXPECT_EQ(current(SIGINT).sa_handler, SIG_IGN);
  std::signal(SIGINT, SIG_DFL);
}

namespace fs = std::filesystem;
using testing::run_tool;

const std::string kPipecheck = std::string(PIPECHECK_BIN_DIR) + "/pipecheck";

TEST(StopSignals, SighupEndsStressWithItsSummary) {
  const fs::path dir = testing::fresh_temp_folder("sighup-stress");
  const fs::path out = dir / "stress";
  // Started in the background of a shell, as a session's job is; SIGHUP once it is burning.
  const auto result = run_tool("cd " + dir.string() + " && timeout 60 " + kPipecheck +
                               " stress --cpu --cpu-threads 1 --duration 40s --plain --no-kernel-log --out " +
                               out.string() + " >log 2>&1 & pid=$!; for i in $(seq 100); do [ -s " + out.string() +
                               "/telemetry.csv ] && break; sleep 0.1; done; sleep 1; kill -HUP $pid; wait $pid; "
                               "echo \"exit $?\"");
  EXPECT_NE(result.output.find("exit 130"), std::string::npos) << result.output << run_tool("cat " + (dir / "log").string()).output;
  EXPECT_TRUE(fs::exists(out / "summary.json")) << run_tool("cat " + (dir / "log").string()).output;
  fs::remove_all(dir);
}

TEST(StopSignals, SighupEndsTheWatchedJobAndWritesWatchJson) {
  const fs::path dir = testing::fresh_temp_folder("sighup-watch");
  const fs::path out = dir / "watch";
  const fs::path pidfile = dir / "job.pid";
  const auto result = run_tool("cd " + dir.string() + " && timeout 60 " + kPipecheck + " watch --no-baseline --out " +
                               out.string() + " -- sh -c 'echo $$ > " + pidfile.string() +
                               "; exec sleep 50' >log 2>&1 & pid=$!; for i in $(seq 100); do [ -s " +
                               pidfile.string() + " ] && break; sleep 0.1; done; sleep 1; kill -HUP $pid; wait $pid; "
                               "echo \"exit $?\"; sleep 0.5; if kill -0 $(cat " + pidfile.string() +
                               ") 2>/dev/null; then echo 'job still running'; kill $(cat " + pidfile.string() +
                               "); fi");
  EXPECT_EQ(result.output.find("job still running"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("exit 124"), std::string::npos) << "the watch did not end: " << result.output;
  EXPECT_TRUE(fs::exists(out / "watch.json")) << result.output << run_tool("cat " + (dir / "log").string()).output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pipecheck
