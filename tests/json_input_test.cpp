// JSON parsed with a nesting and a size limit (core/json_input.hpp): 300,000 nested '[' given to
// compare, run --baseline or watch --baseline ended in SIGSEGV; now each is one line, exit 2.
#include "core/json_input.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/file_io.hpp"
#include "core/process_runner.hpp"
#include "tests/pipecheck_cli.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

TEST(JsonInput, DepthIsCountedOutsideStrings) {
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": []}]})", 100), 4u);
  EXPECT_EQ(json_nesting_depth(R"(["[[[[", "\"[[["])", 100), 1u);
  EXPECT_EQ(json_nesting_depth(std::string(1000000, '['), 10), 11u) << "stops once past the limit";
}

TEST(JsonInput, DeepNestingIsANamedErrorNotACrash) {
  const std::string deep = std::string(300000, '[') + std::string(300000, ']');
  try {
    parse_json(deep);
    FAIL() << "300,000 levels parsed";
  } catch (const nlohmann::json::parse_error& error) {
    EXPECT_NE(std::string(error.what()).find("nested deeper than 256 levels"), std::string::npos) << error.what();
  }
  const std::string fine = std::string(256, '[') + std::string(256, ']');
  EXPECT_NO_THROW(parse_json(fine));
}

TEST(JsonInput, SizeLimitIsANamedError) {
  try {
    parse_json(R"({"a": "0123456789"})", 10);
    FAIL() << "over the size limit parsed";
  } catch (const nlohmann::json::parse_error& error) {
    EXPECT_NE(std::string(error.what()).find("larger than 10 bytes"), std::string::npos) << error.what();
  }
  EXPECT_EQ(parse_json(R"({"a": 1})")["a"], 1);
}

using testing::CliRun;
using testing::run_pipecheck;

class DeepJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-deep-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "run");
    deep_ = dir_ / "run" / "report.json";
    // 600 kB of valid JSON, 300,000 levels deep: the file that ended in SIGSEGV.
    const std::string deep = std::string(300000, '[') + std::string(300000, ']');
    write_file_atomically(deep_, deep);
    write_file_atomically(dir_ / "baseline.json", deep);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void expect_refused(const std::vector<std::string>& args) {
    const CliRun run = run_pipecheck(args);
    SCOPED_TRACE(args[0]);
    ASSERT_EQ(run.process.ending, ProcessResult::Ending::exited) << run.process.describe() << "\n" << run.err;
    EXPECT_EQ(run.process.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find("nested deeper than 256 levels"), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  }

  fs::path dir_, deep_;
};

TEST_F(DeepJsonTest, CompareRefusesIt) {
  const std::string good = std::string(PIPECHECK_TEST_DATA) + "/compare/baseline";
  expect_refused({"compare", good, (dir_ / "run").string()});
  expect_refused({"compare", deep_.string(), good});
}

TEST_F(DeepJsonTest, WatchBaselineRefusesIt) {
  expect_refused({"watch", "--baseline", (dir_ / "baseline.json").string(), "--out", (dir_ / "w").string(), "--",
                  "true"});
}

TEST_F(DeepJsonTest, RunBaselineRefusesItBeforeAnyProbe) {
  expect_refused({"run", "--only", "hostmem", "--quick", "--baseline", (dir_ / "baseline.json").string(), "--out",
                  (dir_ / "results").string()});
}

}  // namespace
}  // namespace pipecheck
