// `pipecheck watch` as a user runs it: the command's output and exit code pass through untouched,
// bad input is one line and exit code 2, and a kill -9 leaves a readable watch.csv.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>

#include "core/file_io.hpp"
#include "core/process_runner.hpp"
#include "tests/pipecheck_cli.hpp"
#include "tests/watch_test_support.hpp"
#include "watch/watch_csv.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

using testing::CliRun;

const std::string kPipecheck = std::string(PIPECHECK_BIN_DIR) + "/pipecheck";

CliRun run_pipecheck(const fs::path& dir, std::vector<std::string> args) { return testing::run_pipecheck_in(dir, args); }

TEST(WatchCli, OutputAndExitCodePassThrough) {
  const auto dir = watch_test::scratch("cli-pass");
  const CliRun run = run_pipecheck(dir, {"watch", "--interval", "0.1", "--no-gpu", "--no-baseline", "--out",
                                         (dir / "w").string(), "--", "sh", "-c",
                                         "printf 'line one\\nline two\\n'; echo to-stderr >&2; sleep 0.3; exit 7"});
  EXPECT_EQ(run.process.ending, ProcessResult::Ending::exited);
  EXPECT_EQ(run.process.exit_code, 7) << run.err;
  EXPECT_EQ(run.out, "line one\nline two\n") << "stdout is the command's alone";
  EXPECT_NE(run.err.find("to-stderr"), std::string::npos);
  EXPECT_NE(run.err.find("verdict: "), std::string::npos) << run.err;
  EXPECT_TRUE(fs::exists(dir / "w" / "watch.json"));
  fs::remove_all(dir);
}

TEST(WatchCli, KilledCommandReturns128PlusSignal) {
  const auto dir = watch_test::scratch("cli-signal");
  const CliRun run = run_pipecheck(dir, {"watch", "--quiet", "--no-gpu", "--no-baseline", "--out",
                                         (dir / "w").string(), "--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(run.process.exit_code, 128 + SIGTERM) << run.err;
  EXPECT_NE(run.err.find("killed by signal 15"), std::string::npos) << run.err;
  fs::remove_all(dir);
}

void expect_usage_error(const CliRun& run, const std::string& names) {
  EXPECT_EQ(run.process.ending, ProcessResult::Ending::exited);
  EXPECT_EQ(run.process.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(names), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "not one line: " << run.err;
}

// An --out folder holding an earlier watch's files is refused unless --force; with --force a
// link placed at watch.csv is removed, never written through.
TEST(WatchCli, OutFolderOfAnotherRunIsRefusedUnlessForced) {
  const auto dir = watch_test::scratch("cli-reuse");
  const fs::path out = dir / "w";
  fs::create_directories(out);
  write_file_atomically(out / "watch.json", "{\"earlier\": true}\n");
  const std::vector<std::string> args = {"watch", "--quiet", "--no-gpu", "--no-baseline", "--out", out.string()};
  std::vector<std::string> refused = args;
  refused.insert(refused.end(), {"--", "true"});
  expect_usage_error(run_pipecheck(dir, refused), "--out " + out.string() + " holds another run's files (watch.json)");
  EXPECT_EQ(read_file(out / "watch.json"), "{\"earlier\": true}\n");
  const std::string user_data(1 << 20, 'u');
  write_file_atomically(dir / "user-file", user_data);
  fs::create_symlink(dir / "user-file", out / "watch.csv");
  std::vector<std::string> forced = args;
  forced.insert(forced.end(), {"--force", "--", "true"});
  const CliRun run = run_pipecheck(dir, forced);
  EXPECT_EQ(run.process.exit_code, 0) << run.err;
  EXPECT_EQ(read_file(dir / "user-file"), user_data) << "the link's target was written through";
  EXPECT_FALSE(fs::is_symlink(out / "watch.csv"));
  EXPECT_NE(read_file(out / "watch.json"), "{\"earlier\": true}\n");
  fs::remove_all(dir);
}

// The README promises workers are reaped: a `( worker & )` left running when the command exits
// is ended with the job and named, not left to run on unwatched.
TEST(WatchCli, WorkersLeftRunningAreEndedWithTheJob) {
  const auto dir = watch_test::scratch("cli-leftover");
  const fs::path marker = dir / "worker.pid";
  const CliRun run = run_pipecheck(dir, {"watch", "--quiet", "--no-gpu", "--no-baseline", "--out", (dir / "w").string(),
                                         "--", "sh", "-c", "( sleep 300 & echo $! > " + marker.string() + " ); exit 0"});
  EXPECT_EQ(run.process.exit_code, 0) << run.err;
  ASSERT_TRUE(fs::exists(marker)) << run.err;
  const pid_t worker = std::stoi(read_file(marker));
  const bool alive = kill(worker, 0) == 0;
  if (alive) kill(worker, SIGKILL);
  EXPECT_FALSE(alive) << "the orphaned worker " << worker << " outlived the watch";
  EXPECT_NE(run.err.find("the command left 1 worker(s) running when it exited: " + std::to_string(worker) + " (sleep)"),
            std::string::npos)
      << run.err;
  EXPECT_NE(read_file(dir / "w" / "watch.json").find("left 1 worker(s) running"), std::string::npos);
  fs::remove_all(dir);
}

TEST(WatchCli, BadInputIsOneLine) {
  const auto dir = watch_test::scratch("cli-bad");
  expect_usage_error(run_pipecheck(dir, {"watch", "--pid", "999999999"}), "--pid 999999999: no such process");
  expect_usage_error(run_pipecheck(dir, {"watch"}), "nothing to watch");
  expect_usage_error(run_pipecheck(dir, {"watch", "--pid", "1", "--", "true"}), "not both");
  expect_usage_error(run_pipecheck(dir, {"watch", "--interval", "fast", "--", "true"}), "--interval: 'fast'");
  expect_usage_error(run_pipecheck(dir, {"watch", "--", "pipecheck-no-such-command"}), "not found in PATH");
  expect_usage_error(run_pipecheck(dir, {"watch", "--baseline", (dir / "none").string(), "--", "true"}),
                     (dir / "none").string());
  // A script whose #! names an interpreter that is not there said only "No such file or
  // directory", though the script is there.
  const fs::path script = dir / "job.sh";
  write_file_atomically(script, "#!/nonexistent/python9 -u\necho hi\n");
  fs::permissions(script, fs::perms::owner_all);
  expect_usage_error(run_pipecheck(dir, {"watch", "--no-baseline", "--out", (dir / "w").string(), "--", script.string()}),
                     "its interpreter '/nonexistent/python9' (the #! line): No such file or directory");
  fs::remove_all(dir);
}

TEST(WatchCli, ListRulesPrintsTheTable) {
  const auto dir = watch_test::scratch("cli-rules");
  const CliRun run = run_pipecheck(dir, {"watch", "--list-rules"});
  EXPECT_EQ(run.process.exit_code, 0);
  EXPECT_NE(run.out.find("input_single_process"), std::string::npos);
  EXPECT_NE(run.out.find("storage_bound"), std::string::npos);
  fs::remove_all(dir);
}

TEST(WatchCli, KillNineLeavesAReadableCsv) {
  const auto dir = watch_test::scratch("cli-kill");
  // exec: the child's pid is pipecheck's; `sleep` is its child in the same process group.
  watch_test::Child child("exec '" + kPipecheck + "' watch --quiet --no-gpu --no-baseline --interval 0.1 --out '" +
                          (dir / "w").string() + "' -- sleep 30");
  const fs::path csv = dir / "w" / "watch.csv";
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (fs::exists(csv) && parse_watch_csv(read_file(csv)).samples.size() >= 5) break;
  }
  kill(child.pid(), SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const ParsedWatchCsv parsed = parse_watch_csv(read_file(csv));
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  EXPECT_GE(parsed.samples.size(), 5u);
  EXPECT_FALSE(fs::exists(dir / "w" / "watch.json")) << "killed before the end: no report, the CSV is the record";
  child.stop();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pipecheck
