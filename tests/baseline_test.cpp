// The baseline step of `make bench`: the first run is recorded, later runs are compared to it,
// and a baseline of another schema version or another machine is refused unless forced. Also
// reading runs: folders, report.json, baseline.json, and bad input named in one line.
#include "compare/baseline.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/outcome.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(PIPECHECK_TEST_DATA) / "compare";

class BaselineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pipecheck-baseline-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    baseline_ = dir_ / "results" / "baseline.json";
  }
  void TearDown() override { fs::remove_all(dir_); }

  int step(const std::string& run, bool force = false) {
    out_.str("");
    err_.str("");
    return record_or_compare_baseline(kData / run, baseline_, force, out_, err_);
  }

  fs::path dir_;
  fs::path baseline_;
  std::ostringstream out_;
  std::ostringstream err_;
};

int line_count(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// The terminal text wraps notes at 100 columns, and where depends on the temporary folder's
// length (the pid's digits): read it with every run of white space as one space.
std::string unwrapped(const std::string& text) {
  std::string flat;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n';
    if (space && !flat.empty() && flat.back() == ' ') continue;
    flat += space ? ' ' : c;
  }
  return flat;
}

TEST_F(BaselineTest, FirstRunIsRecordedWithItsIdentity) {
  ASSERT_EQ(step("baseline"), 0) << err_.str();
  ASSERT_TRUE(fs::exists(baseline_));
  EXPECT_FALSE(fs::exists(baseline_.string() + ".tmp"));
  EXPECT_NE(out_.str().find("baseline: recorded " + baseline_.string()), std::string::npos) << out_.str();
  const auto doc = nlohmann::json::parse(read_file(baseline_));
  EXPECT_EQ(doc["schema"], "pipecheck.baseline");
  EXPECT_EQ(doc["identity"]["hostname"], "node-a");
  ASSERT_EQ(doc["identity"]["gpus"].size(), 2u);
  EXPECT_EQ(doc["identity"]["gpus"][1]["pci_bdf"], "0000:2a:00.0");
  // A verbatim copy of the run's report.json.
  EXPECT_EQ(doc["report"], nlohmann::json::parse(read_file(kData / "baseline" / "report.json")));
}

TEST_F(BaselineTest, LaterRunWithRegressionReturnsOne) {
  ASSERT_EQ(step("baseline"), 0);
  EXPECT_EQ(step("regressed"), 1);
  EXPECT_NE(out_.str().find("REGRESSED"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("result: REGRESSION beyond noise"), std::string::npos);
  EXPECT_EQ(err_.str(), "");
}

TEST_F(BaselineTest, LaterRunWithinNoiseReturnsZeroAndKeepsBaseline) {
  ASSERT_EQ(step("baseline"), 0);
  const std::string recorded = read_file(baseline_);
  EXPECT_EQ(step("within_noise"), 0) << err_.str();
  EXPECT_NE(out_.str().find("no regression beyond noise"), std::string::npos) << out_.str();
  EXPECT_EQ(read_file(baseline_), recorded);
}

TEST_F(BaselineTest, AnotherHostIsRefusedNamingBoth) {
  ASSERT_EQ(step("baseline"), 0);
  const std::string recorded = read_file(baseline_);
  EXPECT_EQ(step("other_host"), 2);
  const std::string err = err_.str();
  EXPECT_EQ(line_count(err), 1) << err;
  EXPECT_NE(err.find(baseline_.string()), std::string::npos) << err;
  EXPECT_NE(err.find("host 'node-a'"), std::string::npos) << err;
  EXPECT_NE(err.find("host 'node-b'"), std::string::npos) << err;
  // `run` has --force-baseline, not --force: the message names the flag that exists.
  EXPECT_NE(err.find("pass --force-baseline to compare anyway"), std::string::npos) << err;
  EXPECT_EQ(out_.str(), "");
  EXPECT_EQ(read_file(baseline_), recorded);
}

TEST_F(BaselineTest, NewerSchemaRefusalNamesRunsFlag) {
  fs::create_directories(baseline_.parent_path());
  fs::copy_file(kData / "recorded_baseline_v3.json", baseline_);
  EXPECT_EQ(step("baseline"), 2);
  EXPECT_NE(err_.str().find("pass --force-baseline to try anyway"), std::string::npos) << err_.str();
}

TEST_F(BaselineTest, BadBaselinePathIsFoundBeforeTheRun) {
  write_file_atomically(dir_ / "a-file", "x");
  try {
    check_baseline_path(dir_ / "a-file" / "results" / "baseline.json", false);
    ADD_FAILURE() << "a baseline under a regular file was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot be created"), std::string::npos) << error.what();
  }
  write_file_atomically(dir_ / "garbage.json", "{ not json");
  EXPECT_THROW(check_baseline_path(dir_ / "garbage.json", false), UsageError);
  EXPECT_THROW(check_baseline_path(dir_, false), UsageError);  // a folder
  EXPECT_NO_THROW(check_baseline_path(dir_ / "new" / "deeper" / "baseline.json", false));
  EXPECT_FALSE(fs::exists(dir_ / "new")) << "a check creates nothing";
  EXPECT_NO_THROW(check_baseline_path(kData / "recorded_baseline.json", false));
}

TEST_F(BaselineTest, NewerInventoryBesideAReportIsRefusedUnlessForced) {
  fs::create_directories(dir_ / "run");
  fs::copy_file(kData / "baseline" / "report.json", dir_ / "run" / "report.json");
  nlohmann::json inventory = nlohmann::json::parse(read_file(kData / "baseline" / "inventory.json"));
  inventory["version"] = 9;
  write_file_atomically(dir_ / "run" / "inventory.json", inventory.dump());
  try {
    load_run(dir_ / "run");
    ADD_FAILURE() << "an inventory of schema version 9 was read";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("inventory.json: inventory schema version 9 is newer than this pipecheck "
                                              "reads (" + std::to_string(kInventorySchemaVersion) +
                                              "); pass --force to try anyway"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(load_run(dir_ / "run", true).identity.hostname, "node-a");
}

TEST_F(BaselineTest, WronglyTypedFieldNamesTheFileAndTheField) {
  nlohmann::json baseline = nlohmann::json::parse(read_file(kData / "recorded_baseline.json"));
  baseline["report"]["measurements"][0]["stats"]["median"] = "fast";
  write_file_atomically(dir_ / "typed.json", baseline.dump());
  try {
    load_run(dir_ / "typed.json");
    FAIL() << "a string median was read";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              (dir_ / "typed.json").string() + ": report.measurements[0].stats.median: expected a number, found \"fast\"");
  }
}

// identity.gpus: "x" was accepted as "GPU set unknown", which skipped the GPU-set check.
TEST_F(BaselineTest, AWronglyTypedIdentityIsRefused) {
  nlohmann::json baseline = nlohmann::json::parse(read_file(kData / "recorded_baseline.json"));
  for (const nlohmann::json& gpus : {nlohmann::json("x"), nlohmann::json::array({7})}) {
    baseline["identity"]["gpus"] = gpus;
    write_file_atomically(dir_ / "identity.json", baseline.dump());
    try {
      load_run(dir_ / "identity.json");
      ADD_FAILURE() << "identity.gpus " << gpus.dump() << " was read";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("identity.gpus"), std::string::npos) << error.what();
    }
  }
}

TEST_F(BaselineTest, AnotherHostComparedWhenForced) {
  ASSERT_EQ(step("baseline"), 0);
  EXPECT_EQ(step("other_host", true), 0) << err_.str();
  EXPECT_NE(out_.str().find("forced: baseline"), std::string::npos) << out_.str();
}

TEST_F(BaselineTest, SwappedGpuIsRefusedNamingTheUuids) {
  ASSERT_EQ(step("baseline"), 0);
  EXPECT_EQ(step("swapped_gpu"), 2);
  EXPECT_NE(err_.str().find("GPU 0000:2a:00.0 was GPU-a-0001, now GPU-a-9999"), std::string::npos)
      << err_.str();
}

TEST_F(BaselineTest, NewerSchemaBaselineIsRefusedUnlessForced) {
  fs::create_directories(baseline_.parent_path());
  fs::copy_file(kData / "recorded_baseline_v3.json", baseline_);
  EXPECT_EQ(step("baseline"), 2);
  EXPECT_EQ(line_count(err_.str()), 1) << err_.str();
  EXPECT_NE(err_.str().find("schema version 3 is newer than this pipecheck reads (2)"), std::string::npos)
      << err_.str();
  EXPECT_NE(err_.str().find(baseline_.string()), std::string::npos);
  EXPECT_EQ(step("baseline", true), 0) << err_.str();
  EXPECT_NE(unwrapped(out_.str()).find("holds report schema version 3, newer than this run's version 1"),
            std::string::npos)
      << out_.str();
}

// A baseline recorded by an earlier pipecheck is compared, not refused (core/outcome.hpp).
TEST_F(BaselineTest, OlderSchemaBaselineIsComparedWithANote) {
  ASSERT_EQ(step("baseline"), 0);  // version 1
  EXPECT_EQ(step("schema_v2"), 0) << err_.str();  // the current version, 2
  EXPECT_EQ(err_.str(), "");
  EXPECT_NE(unwrapped(out_.str()).find("holds report schema version 1, older than this run's 2: compared"),
            std::string::npos)
      << out_.str();
}

TEST_F(BaselineTest, GarbageBaselineIsNamedAndKept) {
  fs::create_directories(baseline_.parent_path());
  write_file_atomically(baseline_, "{ not json");
  EXPECT_EQ(step("baseline"), 2);
  EXPECT_EQ(line_count(err_.str()), 1) << err_.str();
  EXPECT_NE(err_.str().find(baseline_.string() + ": not JSON"), std::string::npos) << err_.str();
  EXPECT_EQ(read_file(baseline_), "{ not json");
}

TEST_F(BaselineTest, UnwritableBaselineIsARunError) {
  EXPECT_THROW(record_or_compare_baseline(kData / "baseline", "/proc/version/x/baseline.json", false,
                                          out_, err_),
               RunError);
}

TEST_F(BaselineTest, RecordedBaselineFileReadsBack) {
  const LoadedRun run = load_run(kData / "recorded_baseline.json");
  EXPECT_EQ(run.identity.hostname, "node-a");
  EXPECT_EQ(run.identity.gpus.size(), 2u);
  EXPECT_EQ(run.report.probes.size(), 4u);
  // The same machine as the run it was recorded from.
  EXPECT_FALSE(baseline_mismatch(run, load_run(kData / "regressed"), baseline_).has_value());
}

TEST(BaselineLoad, BadInputNamesThePath) {
  const auto message = [](const fs::path& path) {
    try {
      load_run(path);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(kData / "nowhere"), (kData / "nowhere").string() + ": no such file or folder");
  EXPECT_EQ(message(kData / "fleet"),
            (kData / "fleet").string() + ": no report.json in this folder (not a pipecheck run folder)");
  EXPECT_NE(message(kData / "not_a_run").find("not_a_run/report.json: not a pipecheck report"),
            std::string::npos)
      << message(kData / "not_a_run");
}

TEST(BaselineLoad, ReportFileOrFolderReadTheSameIdentity) {
  const LoadedRun folder = load_run(kData / "baseline");
  const LoadedRun file = load_run(kData / "baseline" / "report.json");
  EXPECT_EQ(folder.identity.hostname, "node-a");
  ASSERT_TRUE(folder.identity.gpus_known);
  EXPECT_EQ(describe(folder.identity), describe(file.identity));
  EXPECT_EQ(describe(folder.identity),
            "host 'node-a' with 2x NVIDIA H100 80GB HBM3 (0000:17:00.0, 0000:2a:00.0)");
}

TEST(BaselineIdentity, DifferenceNamesBothSides) {
  Inventory a;
  a.hostname = "node-a";
  a.gpus.push_back(GpuInfo{});
  a.gpus[0].name = "NVIDIA A100";
  a.gpus[0].pci_bdf = "0000:17:00.0";
  Inventory b = a;
  EXPECT_FALSE(identity_difference(identity_of(a), identity_of(b)).has_value());
  b.gpus.clear();
  const auto difference = identity_difference(identity_of(a), identity_of(b));
  ASSERT_TRUE(difference.has_value());
  EXPECT_EQ(*difference,
            "host 'node-a' with 1x NVIDIA A100 (0000:17:00.0), this run host 'node-a' with no GPU");
  // Without an inventory the GPUs are unknown and only the host is checked.
  RunIdentity host_only{"node-a", {}, false};
  EXPECT_FALSE(identity_difference(identity_of(a), host_only).has_value());
  host_only.hostname = "node-z";
  EXPECT_TRUE(identity_difference(identity_of(a), host_only).has_value());
}

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// make bench on a fresh clone: `run --out results --baseline results/baseline.json` where no
// results/ exists yet. The relative path ends in the current folder, which may hold it; it was
// refused as "results is not a folder" and the first bench never ran.
TEST(BaselinePath, ARelativeBaselineInAFolderStillToBeMadeIsAccepted) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-relative-baseline-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  EXPECT_NO_THROW(check_baseline_path("results/baseline.json", false));
  EXPECT_NO_THROW(check_baseline_path("baseline.json", false));
  EXPECT_NO_THROW(check_baseline_path("a/b/baseline.json", false));
  EXPECT_FALSE(fs::exists(dir / "results")) << "a check creates nothing";
  EXPECT_TRUE(fs::is_empty(dir)) << "its trial file is gone";
  fs::current_path(before);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pipecheck
