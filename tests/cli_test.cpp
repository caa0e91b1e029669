// The `pipecheck` binary as a user runs it: bad input gives one line and exit code 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/file_io.hpp"
#include "core/process_runner.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

struct CliRun {
  ProcessResult process;
  std::string out;
  std::string err;
};

CliRun run_pipecheck(std::vector<std::string> args) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-cli-" + std::to_string(getpid()));
  fs::create_directories(dir);
  ProcessSpec spec;
  spec.argv = {std::string(PIPECHECK_BIN_DIR) + "/pipecheck"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = dir / "out";
  spec.stderr_path = dir / "err";
  spec.time_limit = std::chrono::seconds(60);
  CliRun run{run_process(spec), read_file(dir / "out"), read_file(dir / "err")};
  fs::remove_all(dir);
  return run;
}

void expect_usage_error(const CliRun& run, const std::string& names) {
  EXPECT_EQ(run.process.ending, ProcessResult::Ending::exited);
  EXPECT_EQ(run.process.exit_code, 2);
  EXPECT_NE(run.err.find(names), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "not one line: " << run.err;
}

TEST(Cli, UnknownFlag) { expect_usage_error(run_pipecheck({"run", "--turbo"}), "--turbo"); }

TEST(Cli, UnknownStage) {
  expect_usage_error(run_pipecheck({"run", "--only", "warp"}), "unknown stage 'warp'");
}

TEST(Cli, UnknownCommand) { expect_usage_error(run_pipecheck({"launch"}), "launch"); }

TEST(Cli, QuickAndFullExclude) {
  expect_usage_error(run_pipecheck({"run", "--quick", "--full"}), "--full");
}

TEST(Cli, UnwritableOut) {
  expect_usage_error(run_pipecheck({"run", "--out", "/proc/version/x"}), "/proc/version/x");
}

TEST(Cli, MissingStoragePath) {
  expect_usage_error(run_pipecheck({"run", "--path", "/no/such/dataset"}), "/no/such/dataset");
}

TEST(Cli, InventoryJsonIsJson) {
  const CliRun run = run_pipecheck({"inventory", "--json"});
  ASSERT_TRUE(run.process.ok()) << run.err;
  EXPECT_NE(run.out.find("\"schema\": \"pipecheck.inventory\""), std::string::npos);
}

// --only takes stages comma-separated as well as space-separated.
TEST(Cli, OnlyTakesCommaSeparatedStages) {
  // Each name is checked on its own: the bad one is named, not "decode,bogus".
  expect_usage_error(run_pipecheck({"run", "--only", "decode,bogus"}), "unknown stage 'bogus'");
  // Both good names get as far as looking for their probes.
  const fs::path out = fs::temp_directory_path() / ("pipecheck-only-" + std::to_string(getpid()));
  const auto run = run_pipecheck({"run", "--only", "decode,hostmem", "--probe-dir", "/nonexistent", "--out", out.string()});
  expect_usage_error(run, "probe binary missing: /nonexistent/pipecheck-jpeg");
  expect_usage_error(run_pipecheck({"run", "--only", "hostmem", "bogus"}), "unknown stage 'bogus'");
  EXPECT_FALSE(fs::exists(out)) << "nothing is written for bad input";
}

TEST(Cli, PromTextfileFolderIsCheckedBeforeAnythingRuns) {
  const fs::path out = fs::temp_directory_path() / ("pipecheck-prom-" + std::to_string(getpid()));
  const auto run = run_pipecheck({"run", "--only", "hostmem", "--out", out.string(), "--prom-textfile", "/nonexistent/textfile"});
  expect_usage_error(run, "--prom-textfile /nonexistent/textfile: no such folder");
  EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, WidthOutOfRange) { expect_usage_error(run_pipecheck({"run", "--width", "10"}), "--width"); }

}  // namespace
}  // namespace pipecheck
