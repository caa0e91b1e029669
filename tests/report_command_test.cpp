// `pipecheck report DIR` on folders someone damaged or booby-trapped: wrongly typed fields name
// the file and the field, a newer inventory is refused, links at the output names are never
// written through, a FIFO in place of report.json is refused rather than waited on.
#include "app/report_command.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/outcome.hpp"
#include "tests/report_refusal.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kRun = fs::path(PIPECHECK_TEST_DATA) / "golden" / "h200";

class ReportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-report-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* name : {"report.json", "inventory.json"}) fs::copy_file(kRun / name, dir_ / name);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The UsageError's text, or "" when the command ran.
  std::string refusal() { return testing::report_refusal(dir_); }

  void edit(const char* name, const std::function<void(json&)>& change) {
    json document = json::parse(read_file(dir_ / name));
    change(document);
    write_file_atomically(dir_ / name, document.dump(2));
  }

  fs::path dir_;
};

TEST_F(ReportCommandTest, WronglyTypedReportFieldNamesFileAndField) {
  edit("report.json", [](json& d) { d["measurements"][0]["stats"]["median"] = "fast"; });
  EXPECT_EQ(refusal(), (dir_ / "report.json").string() +
                           ": measurements[0].stats.median: expected a number, found \"fast\"");
}

TEST_F(ReportCommandTest, EveryKindOfDamageIsOneLineNamingTheField) {
  const struct {
    const char* file;
    std::function<void(json&)> change;
    const char* expected;
  } cases[] = {
      {"report.json", [](json& d) { d["measurements"][1]["stats"] = "x"; },
       "measurements[1].stats: expected an object, found \"x\""},
      {"report.json", [](json& d) { d["measurements"][0]["stats"].erase("median"); },
       "measurements[0].stats: missing field \"median\""},
      {"report.json", [](json& d) { d["probes"][0]["status"] = 7; }, "probes[0].status: expected a string, found 7"},
      // An unknown status was silently rewritten as "failed".
      {"report.json", [](json& d) { d["probes"][0]["status"] = "exploded"; },
       "probes[0].status: expected ok, skipped, not built, failed or interrupted, found \"exploded\""},
      {"report.json", [](json& d) { d["measurements"][0]["params"] = json::array({1}); },
       "measurements[0].params"},
      {"report.json", [](json& d) { d["version"] = "2"; }, "version: expected a number, found \"2\""},
      {"inventory.json", [](json& d) { d["cpu"]["sockets"] = "two"; }, "cpu.sockets: expected a number, found \"two\""},
      {"inventory.json", [](json& d) { d["gpus"][0]["nvlink"] = nullptr; }, "gpus[0].nvlink"},
      {"inventory.json", [](json& d) { d["disks"] = "none"; }, "disks"},
  };
  for (const auto& c : cases) {
    SetUp();
    edit(c.file, c.change);
    const std::string error = refusal();
    EXPECT_EQ(error.rfind((dir_ / c.file).string() + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(c.expected), std::string::npos) << error;
    EXPECT_EQ(error.find("json.exception"), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

// `report` on an interrupted run exited 0: it is judged again as the run exited, interrupted.
TEST_F(ReportCommandTest, AnInterruptedRunIsReportedAsInterrupted) {
  edit("report.json", [](json& d) {
    d["probes"][0]["status"] = "interrupted";
    d["probes"][0]["reason"] = "stopped by SIGINT or SIGTERM after 3 s";
  });
  ReportOptions options;
  options.folder = dir_;
  std::ostringstream out, err;
  EXPECT_EQ(report_folder(options, out, err), 130) << out.str() << err.str();
}

TEST_F(ReportCommandTest, NewerInventoryIsRefused) {
  edit("inventory.json", [](json& d) { d["version"] = 9; });
  EXPECT_NE(refusal().find("inventory.json: schema version 9 is newer than this pipecheck reads (" +
                           std::to_string(kInventorySchemaVersion) + ")"),
            std::string::npos)
      << refusal();
}

TEST_F(ReportCommandTest, LinksAtOutputNamesAreNeverWrittenThrough) {
  const std::string user_data = "the user's own file\n";
  write_file_atomically(dir_ / "user-file", user_data);
  for (const char* name : {"report.json.tmp", "report.html", "report.html.tmp", "report.md", "report.md.tmp",
                           "junit.xml", "junit.xml.tmp", "pipecheck.prom", "pipecheck.prom.tmp"}) {
    fs::create_symlink(dir_ / "user-file", dir_ / name);
  }
  EXPECT_EQ(refusal(), "");
  EXPECT_EQ(read_file(dir_ / "user-file"), user_data);
  EXPECT_FALSE(fs::is_symlink(dir_ / "report.html"));  // the link itself was replaced
  EXPECT_NE(read_file(dir_ / "report.html").find("<html"), std::string::npos);
}

TEST_F(ReportCommandTest, FifoInPlaceOfTheReportIsRefusedNotWaitedOn) {
  fs::remove(dir_ / "report.json");
  ASSERT_EQ(mkfifo((dir_ / "report.json").c_str(), 0600), 0);
  EXPECT_NE(refusal().find("not a regular file"), std::string::npos) << refusal();
}

}  // namespace
}  // namespace pipecheck
