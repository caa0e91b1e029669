// `pipecheck compare` as parsed by CLI11: exit 0 no regression, 1 a regression beyond noise or a
// fleet outlier, 2 bad input with one line naming it; --json, --markdown, --threshold, --force.
#include "app/compare_cli.hpp"
#include "core/file_io.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <sstream>

namespace pipecheck {
namespace {

const std::string kData = std::string(PIPECHECK_TEST_DATA) + "/compare/";

struct CompareRun {
  int code = -1;
  std::string out;
  std::string err;
};

CompareRun compare(std::vector<std::string> args) {
  CLI::App app{"pipecheck"};
  CompareCliState state;
  add_compare_command(app, state);
  args.insert(args.begin(), {"pipecheck", "compare"});
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  CompareRun run;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    run.code = 2;
    run.err = error.what();
    return run;
  }
  std::ostringstream out, err;
  run.code = run_compare_command(state, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

void expect_bad_input(const CompareRun& run, const std::string& names) {
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find(names), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "not one line: " << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(CompareCli, RegressionExitsOne) {
  const auto run = compare({kData + "baseline", kData + "regressed"});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_NE(run.out.find("REGRESSED"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find('\033'), std::string::npos) << "colour into a string stream";
}

TEST(CompareCli, WithinNoiseExitsZero) {
  const auto run = compare({kData + "baseline", kData + "within_noise"});
  EXPECT_EQ(run.code, 0) << run.err << run.out;
}

TEST(CompareCli, ThresholdAboveTheChangeExitsZero) {
  EXPECT_EQ(compare({kData + "baseline", kData + "regressed", "--threshold", "20"}).code, 0);
  EXPECT_EQ(compare({kData + "baseline", kData + "regressed", "--threshold", "19"}).code, 1);
  EXPECT_EQ(compare({kData + "baseline", kData + "regressed", "--threshold", "-1"}).code, 2);
}

TEST(CompareCli, JsonIsTheComparison) {
  const auto run = compare({kData + "baseline/report.json", kData + "regressed", "--json"});
  EXPECT_EQ(run.code, 1);
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["regression"], true);
  EXPECT_EQ(j["baseline"]["source"], kData + "baseline/report.json");
}

TEST(CompareCli, MarkdownTable) {
  const auto run = compare({kData + "baseline", kData + "regressed", "--markdown"});
  EXPECT_NE(run.out.find("| measurement | unit | baseline | current | change | result |"), std::string::npos);
}

TEST(CompareCli, BaselineFileAsInput) {
  EXPECT_EQ(compare({kData + "recorded_baseline.json", kData + "regressed"}).code, 1);
}

TEST(CompareCli, BadInputIsOneLine) {
  expect_bad_input(compare({kData + "baseline", kData + "nowhere"}), kData + "nowhere: no such file");
  expect_bad_input(compare({kData + "baseline", kData + "not_a_run"}), "not a pipecheck report");
  expect_bad_input(compare({kData + "baseline"}), "give two runs (A B), or --fleet DIR...");
  expect_bad_input(compare({}), "got 0");
  expect_bad_input(compare({"--fleet"}), "give the run folders");
}

TEST(CompareCli, OlderVersionsAreComparedNewerNeedForce) {
  // baseline is version 1, schema_v2 the current 2 (there is no version 0: versions count from 1).
  const auto older = compare({kData + "baseline", kData + "schema_v2", "--json"});
  EXPECT_EQ(older.code, 0) << older.err;
  EXPECT_NE(older.out.find("baseline is report schema version 1, " + kData + "schema_v2 version 2"),
            std::string::npos)
      << older.out;
  expect_bad_input(compare({kData + "baseline", kData + "schema_v3"}), "newer than this pipecheck reads");
  const auto forced = compare({kData + "schema_v3", kData + "regressed", "--force", "--json"});
  EXPECT_EQ(forced.code, 1) << forced.err;
  EXPECT_NE(forced.out.find("forced: " + kData + "schema_v3 is report schema version 3"), std::string::npos)
      << forced.out;
}

TEST(CompareCli, AnotherHostIsRefusedUnlessForced) {
  // As the README says: a baseline of another machine is refused unless --force.
  expect_bad_input(compare({kData + "baseline", kData + "other_host"}), "are runs of different machines");
  const auto refused = compare({kData + "baseline", kData + "other_host"});
  EXPECT_NE(refused.err.find("pass --force to compare anyway"), std::string::npos) << refused.err;
  expect_bad_input(compare({kData + "baseline", kData + "swapped_gpu"}), "different machines");
  const auto forced = compare({kData + "baseline", kData + "other_host", "--force"});
  EXPECT_EQ(forced.code, 0) << forced.err;
  EXPECT_NE(forced.out.find("different hosts: node-a (baseline) and node-b"), std::string::npos) << forced.out;
}

TEST(CompareCli, FolderNamesAreEscapedInTheOutput) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-compare-names-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const fs::path odd = dir / "run\x1b[31m\xff";
  fs::create_directories(odd);
  for (const char* name : {"report.json", "inventory.json"}) fs::copy_file(fs::path(kData) / "baseline" / name, odd / name);
  const auto run = compare({odd.string(), kData + "within_noise"});
  fs::remove_all(dir);
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out.find('\x1b'), std::string::npos) << "a raw ESC reached the terminal";
  EXPECT_NE(run.out.find("run\\x1b[31m\\xff"), std::string::npos) << run.out;
}

TEST(CompareCli, FleetNamesOutliersAndExitsOne) {
  // --no-html: the recorded fleet folder stays as it is.
  const auto run = compare({"--fleet", kData + "fleet", "--no-html"});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_NE(run.out.find("outlier hosts:\n  node-c"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("outlier GPUs:\n  node-d 0000:2a:00.0"), std::string::npos) << run.out;
  EXPECT_EQ(compare({"--fleet", kData + "fleet", "--tolerance", "50", "--no-html"}).code, 0);
}

// The fleet page beside the terminal table: fleet.html in the one folder given (a copy here),
// or where --html says; outlier hosts marked in the hosts x stages matrix.
TEST(CompareCli, FleetWritesItsPage) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("pipecheck-fleet-page-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "results");
  fs::copy(kData + "fleet", root / "results", fs::copy_options::recursive);
  const auto run = compare({"--fleet", (root / "results").string()});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_NE(run.out.find("fleet page: " + (root / "results" / "fleet.html").string()), std::string::npos) << run.out;
  const std::string page = read_file(root / "results" / "fleet.html");
  EXPECT_NE(page.find("<tr class=\"outlier-host\" data-host=\"node-c\">"), std::string::npos) << page;
  EXPECT_EQ(page.find("data-host=\"node-a\"><th>node-a</th><td class=\"cell outlier"), std::string::npos);

  const auto json = compare({"--fleet", (root / "results").string(), "--json", "--html", (root / "page.html").string()});
  EXPECT_EQ(nlohmann::json::parse(json.out)["schema"], "pipecheck.fleet");  // stdout stays JSON
  EXPECT_NE(json.err.find("fleet page: "), std::string::npos);
  EXPECT_TRUE(fs::exists(root / "page.html"));
  EXPECT_EQ(compare({"--fleet", (root / "results").string(), "--no-html", "--html", "x.html"}).code, 2);
  fs::remove_all(root);
}

TEST(CompareCli, MoreThanTwoRunsIsAFleet) {
  const std::string f = kData + "fleet/";
  const auto run = compare({f + "node-a-20261130T080000Z", f + "node-b-20261130T080000Z",
                            f + "node-c-20261130T080000Z", "--json"});
  EXPECT_EQ(run.code, 1) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["schema"], "pipecheck.fleet");
}

// Two --out folders: the latest run inside each (by started_utc, not by name), said on stderr.
TEST(CompareCli, OutFoldersCompareTheirLatestRun) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("pipecheck-compare-out-" + std::to_string(getpid()));
  fs::remove_all(root);
  const fs::path a = root / "a", b = root / "b";
  // In a: the baseline run (08:00) under a name that sorts last, a later one that regressed
  // (09:00), and an unfinished run that must be ignored.
  fs::create_directories(a);
  fs::copy(kData + "baseline", a / "node-z-old", fs::copy_options::recursive);
  fs::copy(kData + "regressed", a / "node-a-new", fs::copy_options::recursive);
  fs::copy(kData + "within_noise", a / "node-b-20261130T110000Z.incomplete", fs::copy_options::recursive);
  fs::create_directories(b);
  fs::copy(kData + "baseline", b / "node-only", fs::copy_options::recursive);
  fs::create_directories(a / "watch-node-20261130T000000Z");  // no report.json: not a run

  const auto run = compare({b.string(), a.string()});
  EXPECT_EQ(run.code, 1) << run.err << run.out;  // baseline -> regressed
  EXPECT_NE(run.err.find(b.string() + ": comparing its one run, " + (b / "node-only").string()), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(a.string() + " holds 2 runs: comparing the latest, " + (a / "node-a-new").string()),
            std::string::npos) << run.err;
  EXPECT_NE(run.out.find("REGRESSED"), std::string::npos);

  fs::create_directories(root / "empty");
  expect_bad_input(compare({(root / "empty").string(), b.string()}), (root / "empty").string() + ": no report.json");
  fs::remove_all(root);
}

}  // namespace
}  // namespace pipecheck
