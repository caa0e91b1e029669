// The --out folder of stress and watch: another run's files are refused unless --force, and
// with --force a link at one of their names is removed, never written through.
#include "app/out_folder.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/process_runner.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

class OutFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-out-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(OutFolderTest, AnotherRunsFilesAreRefusedUnlessForced) {
  EXPECT_NO_THROW(claim_out_folder(dir_ / "out", {"telemetry.csv", "summary.json"}, false));  // empty
  EXPECT_NO_THROW(claim_out_folder(dir_ / "not-yet", {"telemetry.csv"}, false));            // missing
  write_file_atomically(dir_ / "out" / "summary.json", "{}");
  fs::create_symlink("/nonexistent", dir_ / "out" / "telemetry.csv");  // a dangling link counts
  try {
    claim_out_folder(dir_ / "out", {"telemetry.csv", "summary.json"}, false);
    FAIL() << "accepted";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()), "--out " + (dir_ / "out").string() +
                                             " holds another run's files (telemetry.csv, summary.json): choose "
                                             "another folder, or pass --force to replace them");
  }
  EXPECT_TRUE(fs::exists(dir_ / "out" / "summary.json"));
  claim_out_folder(dir_ / "out", {"telemetry.csv", "summary.json"}, true);
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_ / "out" / "telemetry.csv")));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "summary.json"));
}

struct CliResult {
  ProcessResult process;
  std::string err;
};

CliResult run_pipecheck(const fs::path& dir, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {std::string(PIPECHECK_BIN_DIR) + "/pipecheck"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdout_path = dir / "stdout";
  spec.stderr_path = dir / "stderr";
  spec.time_limit = std::chrono::seconds(60);
  CliResult run{run_process(spec), ""};
  run.err = read_file(dir / "stderr");
  return run;
}

// The case: a telemetry.csv link in --out made stress truncate a 16 MiB user file.
TEST_F(OutFolderTest, StressNeverWritesThroughALinkInOut) {
  const std::string user_data(16 << 20, 'u');
  write_file_atomically(dir_ / "user-file", user_data);
  fs::create_symlink(dir_ / "user-file", dir_ / "out" / "telemetry.csv");
  const std::vector<std::string> args = {"stress", "--cpu", "--cpu-threads", "1", "--gpus", "none", "--duration", "1",
                                         "--no-kernel-log", "--plain", "--out", (dir_ / "out").string()};
  const CliResult refused = run_pipecheck(dir_, args);
  EXPECT_EQ(refused.process.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("holds another run's files (telemetry.csv)"), std::string::npos) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  std::vector<std::string> forced = args;
  forced.push_back("--force");
  const CliResult run = run_pipecheck(dir_, forced);
  EXPECT_LE(run.process.exit_code, 1) << run.err;
  EXPECT_EQ(read_file(dir_ / "user-file"), user_data) << "the link's target was written through";
  EXPECT_FALSE(fs::is_symlink(dir_ / "out" / "telemetry.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "summary.json"));
}

}  // namespace
}  // namespace pipecheck
