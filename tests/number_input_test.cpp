// The one reader for numbers from flags and files (core/number_input.hpp), and its uses: every
// float flag refuses nan and inf with a readable range, integers are read whole, and the numbers
// of report.json, inventory.json, baseline.json and telemetry.csv are finite and in range.
#include "core/number_input.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/report_command.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_field_error.hpp"
#include "core/process_runner.hpp"
#include "compare/baseline.hpp"
#include "telemetry/telemetry_csv.hpp"
#include "tests/pipecheck_cli.hpp"
#include "tests/report_refusal.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using testing::CliRun;

CliRun run_pipecheck(const std::vector<std::string>& args) {
  return testing::run_pipecheck(args, std::chrono::seconds(30));  // `run --wait-quiet nan` hung here
}

// Exit 2 at once, one line naming the flag and `says`, no 309-digit bound, no "out of range".
void expect_refused(const std::vector<std::string>& args, const std::string& flag, const std::string& says) {
  const CliRun run = run_pipecheck(args);
  SCOPED_TRACE(args[0] + " " + flag);
  EXPECT_EQ(run.process.ending, ProcessResult::Ending::exited) << run.process.describe();
  EXPECT_EQ(run.process.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find(flag), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(says), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(run.err.find("out of range"), std::string::npos) << run.err;
  EXPECT_LT(run.err.size(), 200u) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(NumberInput, TakesWholeFiniteNumbersInRange) {
  std::string why;
  EXPECT_EQ(parse_number("2.5", 0, 100, why), 2.5);
  EXPECT_EQ(parse_number(" 7 ", 0, 100, why), 7.0);
  EXPECT_EQ(parse_number("1e2", 0, 100, why), 100.0);
  for (const char* text : {"nan", "NaN", "-nan", "inf", "-Infinity", "nan(0x1)"}) {
    EXPECT_FALSE(parse_number(text, kNoLowerBound, kNoUpperBound, why)) << text;
    EXPECT_NE(why.find("is not a finite number"), std::string::npos) << why;
  }
  EXPECT_FALSE(parse_number("abc", 0, 100, why));
  EXPECT_EQ(why, "'abc' is not a number (between 0 and 100)");
  EXPECT_FALSE(parse_number("5%", 0, 100, why));
  EXPECT_FALSE(parse_number("", 0, 100, why));
  EXPECT_FALSE(parse_number("-1", 0, 100, why));
  EXPECT_EQ(why, "'-1' is not between 0 and 100");
  EXPECT_FALSE(parse_number("1e400", 0, kNoUpperBound, why));
  EXPECT_EQ(why, "'1e400' is not at least 0");
}

TEST(NumberInput, IntegersAreReadWholeNeverTruncated) {
  std::string why;
  EXPECT_EQ(parse_integer("42", 1, 100, why), 42);
  EXPECT_FALSE(parse_integer("4294967298", 1, 2, why));
  EXPECT_EQ(why, "'4294967298' is not between 1 and 2");
  EXPECT_FALSE(parse_integer("1.5", 1, 100, why));
  EXPECT_NE(why.find("is not a whole number"), std::string::npos) << why;
  EXPECT_FALSE(parse_integer("1e30", 1, 100, why));
  EXPECT_FALSE(parse_integer("99999999999999999999999", 1, 100, why));
  EXPECT_FALSE(parse_integer("x", 1, 100, why));
  EXPECT_NE(why.find("is not a number"), std::string::npos) << why;
}

TEST(NumberInput, RangesReadAsPeopleWriteThem) {
  EXPECT_EQ(range_text(0, 100), "between 0 and 100");
  EXPECT_EQ(range_text(0, kNoUpperBound), "at least 0");
  EXPECT_EQ(range_text(kNoLowerBound, 5), "at most 5");
  EXPECT_EQ(range_text(0, 0.5), "between 0 and 0.5");
  EXPECT_EQ(number_text(kLargestFigure), "1e+15");
}

TEST(NumberInput, JsonIntegersAreWholeAndFit) {
  EXPECT_EQ(json_integer(json(2), 1, 9), 2);
  EXPECT_THROW(json_integer(json(4294967298ULL), 1, 9), FieldError);
  EXPECT_THROW(json_integer(json(1e30), 1, 9), FieldError);
  EXPECT_THROW(json_integer(json(-1), 1, 9), FieldError);
  EXPECT_THROW(value_as<int>(json(4294967298ULL)), FieldError);
  EXPECT_THROW(value_as<int>(json(1e30)), FieldError);
  EXPECT_THROW(value_as<unsigned>(json(-1)), FieldError);
  EXPECT_EQ(value_as<int>(json(-7)), -7);
  EXPECT_THROW(json_number(json(-1.0), 0, kLargestFigure), FieldError);
  EXPECT_THROW(json_number(json(1e308), 0, kLargestFigure), FieldError);
}

// `pipecheck run --wait-quiet nan` printed "waiting up to -9223372036854775808 s" and hung.
TEST(NumberInput, EveryFloatFlagRefusesNanAndInfinity) {
  const std::string fleet = std::string(PIPECHECK_TEST_DATA) + "/compare/fleet";
  const std::string a = std::string(PIPECHECK_TEST_DATA) + "/compare/baseline";
  const std::string b = std::string(PIPECHECK_TEST_DATA) + "/compare/regressed";
  for (const char* bad : {"nan", "inf", "-inf", "NaN"}) {
    expect_refused({"run", "--wait-quiet", bad}, "--wait-quiet", "is not a finite number");
    expect_refused({"compare", "--fleet", fleet, "--no-html", "--tolerance", bad}, "--tolerance",
                   "is not a finite number");
    expect_refused({"compare", a, b, "--threshold", bad}, "--threshold", "is not a finite number");
    expect_refused({"stress", "--tolerance", bad}, "--tolerance", "is not a finite number");
    expect_refused({"stress", "--verify-tolerance", bad}, "--verify-tolerance", "is not a finite number");
  }
}

TEST(NumberInput, FlagMessagesNameTheRangeAndCallGarbageNotANumber) {
  expect_refused({"stress", "--tolerance", "-1"}, "--tolerance", "'-1' is not between 0 and 100");
  expect_refused({"stress", "--tolerance", "abc"}, "--tolerance", "'abc' is not a number (between 0 and 100)");
  expect_refused({"compare", "--threshold", "-1", "a", "b"}, "--threshold", "is not between 0 and");
  expect_refused({"run", "--timeout", "4294967298"}, "--timeout", "is not between 1 and 604800");
  expect_refused({"run", "--timeout", "1.5"}, "--timeout", "is not a whole number");
  expect_refused({"stress", "--matrix", "1e30"}, "--matrix", "is not a whole number");
}

class NumberFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-numbers-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const fs::path run = fs::path(PIPECHECK_TEST_DATA) / "golden" / "h200";
    for (const char* name : {"report.json", "inventory.json"}) fs::copy_file(run / name, dir_ / name);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void edit(const char* name, const std::function<void(json&)>& change) {
    json document = json::parse(read_file(dir_ / name));
    change(document);
    write_file_atomically(dir_ / name, document.dump(2));
  }

  // The refusal of `pipecheck report` (in-process), or "" when it ran.
  std::string refusal() { return testing::report_refusal(dir_); }

  fs::path dir_;
};

TEST_F(NumberFilesTest, SchemaVersionsAreWholeNumbersFromOne) {
  // 4294967298 read as version 2; 1e30 was written back as -2147483648; -1 and 0 were accepted.
  const std::string recorded = json::parse(read_file(dir_ / "report.json")).at("version").dump();
  for (const json& version : {json(4294967298ULL), json(1e30), json(-1), json(0), json(2.5)}) {
    for (const char* file : {"report.json", "inventory.json"}) {
      SetUp();
      edit(file, [&](json& d) { d["version"] = version; });
      const std::string error = refusal();
      EXPECT_NE(error.find(std::string(file) + ": version: expected a"), std::string::npos) << file << " " << error;
      EXPECT_EQ(json::parse(read_file(dir_ / "report.json")).value("version", json()).dump(),
                std::string(file) == "report.json" ? version.dump() : recorded)
          << "report rewrote the file it refused";
    }
  }
}

TEST_F(NumberFilesTest, FiguresAreFiniteNonNegativeAndBelowOverflow) {
  const struct {
    std::function<void(json&)> change;
    const char* names;
  } cases[] = {
      {[](json& d) { d["measurements"][0]["stats"]["median"] = 1e308; }, "measurements[0].stats.median"},
      {[](json& d) { d["measurements"][0]["stats"]["min"] = -5.0; }, "measurements[0].stats.min"},
      {[](json& d) { d["measurements"][0]["repetitions"][0] = -1.0; }, "measurements[0].repetitions[0]"},
      {[](json& d) { d["measurements"][0]["stats"]["samples"] = 4294967298ULL; }, "measurements[0].stats.samples"},
  };
  for (const auto& c : cases) {
    SetUp();
    edit("report.json", c.change);
    const std::string error = refusal();
    EXPECT_NE(error.find(c.names), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

TEST_F(NumberFilesTest, BaselineVersionIsAWholeNumber) {
  const fs::path baseline = dir_ / "baseline.json";
  json document = json::parse(read_file(fs::path(PIPECHECK_TEST_DATA) / "compare" / "recorded_baseline.json"));
  for (const json& version : {json(4294967298ULL), json(-1), json(0), json(1e30)}) {
    document["version"] = version;
    write_file_atomically(baseline, document.dump());
    try {
      load_run(baseline, false);
      ADD_FAILURE() << "baseline version " << version.dump() << " accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("version: expected a"), std::string::npos) << error.what();
    }
  }
}

// A telemetry.csv cell "nan" put 63 cx="nan" attributes into report.html; 1e308 became "inf".
TEST(NumberInput, TelemetryCellsAreFiniteAndOfASensorsSize) {
  const std::string header = telemetry_csv_header() + "\n";
  for (const char* bad : {"nan", "inf", "1e308", "-nan"}) {
    const std::string text = std::string("2026-11-28T14:08:00.000Z,") + bad +
                             ",gpu,0,0000:18:00.0,38,47,121.4,700.0,1980,3201,0,0,GpuIdle,0,0,0,,,,,,";
    const ParsedTelemetry parsed = parse_telemetry_csv(header + text + "\n");
    EXPECT_TRUE(parsed.rows.empty()) << bad;
    ASSERT_EQ(parsed.errors.size(), 1u) << bad;
    EXPECT_NE(parsed.errors[0].find("elapsed_s"), std::string::npos) << parsed.errors[0];
  }
}

}  // namespace
}  // namespace pipecheck
