// The stage registry: every registered stage is a complete record, the folders and executables
// carry its name, and a stage that exists only in this file (its record, a fake probe script)
// goes through `run`, the report, every renderer and `compare` without any other file naming it.
#include "core/stage_registry.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "app/compare_cli.hpp"
#include "app/probe_catalog.hpp"
#include "app/run_command.hpp"
#include "core/file_io.hpp"
#include "judge/profile.hpp"
#include "report/report.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(PIPECHECK_TEST_DATA).parent_path().parent_path();

TEST(StageRegistry, EveryRegisteredStageIsComplete) {
  ASSERT_FALSE(stage_registry().empty());
  std::set<std::string> names, titles;
  for (const StageSpec& stage : stage_registry()) {
    EXPECT_TRUE(missing_parts(stage).empty()) << stage.name << ": " << missing_parts(stage).front();
    EXPECT_TRUE(names.insert(stage.name).second) << "two stages named " << stage.name;
    EXPECT_TRUE(titles.insert(stage.title).second) << "two stages titled " << stage.title;
    for (const ProfileKeySpec& key : stage.profile_keys) {
      EXPECT_EQ(default_profile().values.count(key.name), 1u) << key.name;
    }
    if (stage.executable.empty()) continue;
    // One name for stage, executable and folder (issue 23).
    EXPECT_EQ(stage.executable, "pipecheck-" + stage.name);
    EXPECT_TRUE(fs::is_directory(kSource / stage.name)) << "no folder " << stage.name << "/ for the probe";
    EXPECT_TRUE(fs::exists(kSource / stage.name / "CMakeLists.txt")) << stage.name;
  }
}

TEST(StageRegistry, AnIncompleteRecordIsNamedAndRefused) {
  StageSpec spec = *find_stage("hostmem");
  spec.name = "half";
  spec.advice.clear();
  ASSERT_EQ(missing_parts(spec), std::vector<std::string>{"no advice"});
  EXPECT_THROW(ScopedStage{spec}, std::invalid_argument);
  spec.advice = "something";
  spec.checks = nullptr;
  EXPECT_EQ(missing_parts(spec), std::vector<std::string>{"no judging rule"});
  spec.checks = find_stage("hostmem")->checks;
  spec.profile_text = "# no key here\n";
  EXPECT_FALSE(missing_parts(spec).empty()) << "profile text without its keys";
  spec.profile_text = find_stage("hostmem")->profile_text;
  spec.profile_keys.push_back({"half.not_in_text", ProfileValueKind::percent, "a key its text lacks"});
  EXPECT_EQ(missing_parts(spec), std::vector<std::string>{"a profile key missing from its profile text"});
  EXPECT_THROW(ScopedStage{*find_stage("decode")}, std::invalid_argument) << "a name taken already";
}

TEST(StageRegistry, PipelineOrderAndTitles) {
  std::vector<std::string> order;
  for (const StageSpec& stage : stage_registry()) order.push_back(stage.name);
  EXPECT_EQ(order, (std::vector<std::string>{"storage", "decode", "hostmem", "pcie", "memory", "compute", "comm",
                                             "stress"}));
  EXPECT_EQ(stage_title("memory"), "GPU memory (HBM)");
  EXPECT_EQ(stage_title("teleport"), "teleport");  // a stage of another pipecheck: its name
  EXPECT_EQ(find_stage("teleport"), nullptr);
}

// ---- A stage defined here alone ------------------------------------------------------------

// A probe as a script: Google Benchmark JSON of one case, six repetitions at GB_PER_S GB/s.
void write_fake_probe(const fs::path& path, double gb_per_s) {
  std::ostringstream runs;
  for (int i = 0; i < 6; ++i) {
    const double rate = gb_per_s * 1e9 * (1 + 0.001 * i);
    runs << (i ? "," : "") << R"({"name": "echo/copy/real_time", "run_name": "echo/copy/real_time",)"
         << R"( "run_type": "iteration", "repetitions": 6, "repetition_index": )" << i
         << R"(, "iterations": 10, "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ms", "bytes_per_second": )"
         << rate << R"(, "label": "op=copy;verified=yes;what=echo copy"})";
  }
  std::ofstream out(path);
  out << "#!/bin/sh\n"
      << "# The probe of the test-only stage: checks nothing, prints one case.\n"
      << "for a in \"$@\"; do [ \"$a\" = --pipecheck_check_inputs ] && exit 0; done\n"
      << "cat <<'EOF'\n"
      << R"({"context": {"pipecheck_stage": "echo"}, "benchmarks": [)" << runs.str() << "]}\n"
      << "EOF\n";
  out.close();
  chmod(path.c_str(), 0755);
}

StageSpec echo_stage() {
  StageSpec s;
  s.name = "echo";
  s.title = "Echo copies (test stage)";
  s.description = "a fake probe that prints one copy rate";
  s.executable = "pipecheck-echo";
  s.probe_checks_inputs = true;
  s.ceiling = [](const Measurement&, const StageContext&) {
    return CeilingResult::known({10, "GB/s", "theoretical", "10 GB/s = the echo link"});
  };
  s.physical = [](const Measurement&, const Inventory&, const Inventory&) {
    return std::optional<Ceiling>(Ceiling{10, "GB/s", "theoretical", "10 GB/s = the echo link"});
  };
  s.checks = [](const Measurement&, const StageContext&) {
    return StageChecks{{{CheckKind::percent_min, "echo.copy_min_percent", 0, "", ""}}, ""};
  };
  s.profile_text = "# Echo copies (stage echo), % of the echo link.\necho.copy_min_percent = 60\n";
  s.profile_keys = {{"echo.copy_min_percent", ProfileValueKind::percent, "echo copy, min % of the echo link"}};
  s.advice = "Check the echo cable.";
  s.measurement_contract = "op (copy); unit GB/s.";
  return s;
}

class TestOnlyStage : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-stage-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "probes");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One `run --only echo` with the probe reporting `rate`; its run folder.
  fs::path run_echo(double rate, const std::string& out, int expected_exit) {
    write_fake_probe(dir_ / "probes" / "pipecheck-echo", rate);
    RunOptions options;
    options.only = {"echo"};
    options.out = dir_ / out;
    options.probe_dir = dir_ / "probes";
    options.timeout_seconds = 10;
    options.quiet_window_seconds = 0.05;
    // Judged as on a quiet machine: the tests' own build may load this one.
    options.profile_path = dir_ / "quiet.profile";
    std::ofstream(options.profile_path) << "conditions.other_cpu_max_percent = off\nconditions.steal_max_percent = off\n";
    std::ostringstream said, errors;
    EXPECT_EQ(run_suite(options, probe_catalog(), said, errors), expected_exit) << said.str() << errors.str();
    summary_ = said.str();
    fs::path folder;
    for (const auto& entry : fs::directory_iterator(options.out)) {
      if (entry.is_directory()) folder = entry.path();  // not history.db beside it
    }
    return folder;
  }

  fs::path dir_;
  std::string summary_;
};

TEST_F(TestOnlyStage, GoesThroughRunReportEveryRendererAndCompare) {
  const ScopedStage echo(echo_stage());
  // The catalog, the driver's --only and the default profile know it now.
  const auto catalog = probe_catalog();
  EXPECT_TRUE(std::any_of(catalog.begin(), catalog.end(), [](const ProbeEntry& p) { return p.stage == "echo"; }));
  EXPECT_NE(default_profile_text().find("echo.copy_min_percent = 60"), std::string::npos);

  // 8 GB/s of a 10 GB/s ceiling: 80%, a pass against 60% + the warn margin.
  const fs::path first = run_echo(8, "a", 0);
  const Report report = report_from_json(nlohmann::json::parse(read_file(first / "report.json")));
  ASSERT_EQ(report.probes.size(), 1u);
  ASSERT_EQ(report.probes[0].measurements.size(), 1u);
  const Measurement& m = report.probes[0].measurements[0];
  EXPECT_EQ(m.stage, "echo");
  ASSERT_TRUE(m.ceiling.ceiling);
  EXPECT_EQ(m.ceiling.ceiling->derivation, "10 GB/s = the echo link");
  ASSERT_TRUE(m.percent_of_ceiling);
  EXPECT_NEAR(*m.percent_of_ceiling, 80, 0.5);
  bool judged = false;
  for (const Judgement& j : report.judged.judgements) {
    if (j.subject != m.key) continue;
    judged = true;
    EXPECT_EQ(j.verdict, Verdict::pass) << j.explanation;
    EXPECT_NE(j.rule.find("echo.copy_min_percent"), std::string::npos) << j.rule;
  }
  EXPECT_TRUE(judged);
  // The terminal summary has its row and its ceiling's derivation; the files title it from its record.
  EXPECT_NE(summary_.find("echo copy"), std::string::npos) << summary_;
  EXPECT_NE(summary_.find("10 GB/s = the echo link"), std::string::npos) << summary_;
  for (const char* file : {"report.html", "report.md", "junit.xml", "pipecheck.prom"}) {
    const std::string text = read_file(first / file);
    EXPECT_TRUE(text.find("Echo copies (test stage)") != std::string::npos || text.find("echo") != std::string::npos)
        << file;
  }
  EXPECT_NE(read_file(first / "report.html").find("Echo copies (test stage)"), std::string::npos);
  EXPECT_NE(read_file(first / "report.md").find("Echo copies (test stage)"), std::string::npos);
  EXPECT_NE(read_file(first / "junit.xml").find("echo"), std::string::npos);
  EXPECT_NE(read_file(first / "pipecheck.prom").find("stage=\"echo\""), std::string::npos);

  // 4 GB/s: 40%, below the stage's minimum; the advice is the stage's own.
  const fs::path second = run_echo(4, "b", 1);
  EXPECT_NE(read_file(second / "report.html").find("Check the echo cable."), std::string::npos);
  EXPECT_NE(read_file(second / "report.md").find("Check the echo cable."), std::string::npos);

  // compare: the halved copy rate is a regression beyond noise.
  CompareCliState state;
  state.inputs = {first.string(), second.string()};
  state.no_color = true;
  state.force = true;  // compared even when this machine's own build kept it busy
  std::ostringstream out, err;
  EXPECT_EQ(run_compare_command(state, out, err), 1) << out.str() << err.str();
  EXPECT_NE(out.str().find("echo"), std::string::npos) << out.str();
}

TEST_F(TestOnlyStage, IsGoneWhenItsScopeEnds) {
  { const ScopedStage echo(echo_stage()); }
  EXPECT_EQ(find_stage("echo"), nullptr);
  EXPECT_EQ(default_profile_text().find("echo."), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
