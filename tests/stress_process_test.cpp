// `pipecheck stress` as a real process: --inject-faults counts at least N wrong results, says
// fail and exits 1; SIGINT or SIGTERM mid-run ends with verdict interrupted and exit 130, with a
// summary and no rate over the partial last interval.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/file_io.hpp"
#include "telemetry/telemetry_csv.hpp"

extern char** environ;

namespace pipecheck {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-stressproc-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// `pipecheck stress ARGS... --out DIR/s`, its output in DIR/stdout and DIR/stderr.
pid_t spawn_stress(const fs::path& dir, std::vector<std::string> args) {
  std::vector<std::string> argv = {std::string(PIPECHECK_BIN_DIR) + "/pipecheck", "stress"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--out");
  argv.push_back((dir / "s").string());
  std::vector<char*> pointers;
  for (auto& arg : argv) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, (dir / "stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, (dir / "stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

// The exit status, or -1 after `limit` (the child is then killed).
int wait_exit(pid_t pid, std::chrono::seconds limit) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < give_up) {
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(20ms);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

std::size_t telemetry_rows(const fs::path& csv) {
  std::error_code error;
  if (!fs::exists(csv, error)) return 0;
  return parse_telemetry_csv(read_file(csv)).rows.size();
}

TEST(StressProcess, InjectedFaultsFailTheRun) {
  const fs::path dir = scratch("inject");
  const pid_t pid = spawn_stress(dir, {"--cpu", "--duration", "4", "--inject-faults", "5", "--plain"});
  ASSERT_GT(pid, 0);
  EXPECT_EQ(wait_exit(pid, 60s), 1) << read_file(dir / "stdout") << read_file(dir / "stderr");
  const auto summary = nlohmann::json::parse(read_file(dir / "s" / "summary.json"));
  EXPECT_EQ(summary["verdict"], "fail");
  EXPECT_EQ(summary["exit_code"], 1);
  EXPECT_EQ(summary["inject_faults"], 5);
  EXPECT_EQ(summary["cpu"]["injected_faults"], 5);
  EXPECT_GE(summary["cpu"]["wrong_results"].get<std::uint64_t>(), 5u);
  const std::string out = read_file(dir / "stdout");
  EXPECT_NE(out.find("cpu: 5 wrong results (5 injected by --inject-faults)"), std::string::npos) << out;
  fs::remove_all(dir);
}

void expect_interrupted_by(int signal) {
  const fs::path dir = scratch("signal" + std::to_string(signal));
  const pid_t pid = spawn_stress(dir, {"--cpu", "--duration", "60", "--interval", "0.2", "--plain"});
  ASSERT_GT(pid, 0);
  // Mid-run: once the burn has written a few rows (5 a second).
  for (int i = 0; i < 300 && telemetry_rows(dir / "s" / "telemetry.csv") < 6; ++i) std::this_thread::sleep_for(50ms);
  ASSERT_GE(telemetry_rows(dir / "s" / "telemetry.csv"), 6u) << read_file(dir / "stderr");
  kill(pid, signal);
  EXPECT_EQ(wait_exit(pid, 30s), 130) << read_file(dir / "stdout") << read_file(dir / "stderr");
  const auto summary = nlohmann::json::parse(read_file(dir / "s" / "summary.json"));
  EXPECT_EQ(summary["stopped_by"], "interrupted");
  EXPECT_EQ(summary["verdict"], "interrupted");
  EXPECT_EQ(summary["exit_code"], 130);
  EXPECT_LT(summary["duration_s"].get<double>(), 50);
  EXPECT_NE(read_file(dir / "stdout").find("verdict: interrupted"), std::string::npos);
  // The last row comes right after the stop: when it follows a row with a rate by less than
  // half an interval, its rate is left out rather than taken over those few milliseconds.
  const auto rows = parse_telemetry_csv(read_file(dir / "s" / "telemetry.csv")).rows;
  ASSERT_GE(rows.size(), 2u);
  const TelemetryRow& last = rows.back();
  const TelemetryRow& before = rows[rows.size() - 2];
  if (before.tflops && last.elapsed_s - before.elapsed_s < 0.08) {
    EXPECT_FALSE(last.tflops) << "a rate over " << (last.elapsed_s - before.elapsed_s) * 1000 << " ms";
  }
  fs::remove_all(dir);
}

TEST(StressProcess, SigintEndsInterrupted) { expect_interrupted_by(SIGINT); }
TEST(StressProcess, SigtermEndsInterrupted) { expect_interrupted_by(SIGTERM); }

}  // namespace
}  // namespace pipecheck
