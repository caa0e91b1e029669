// The rules on recorded samples (tests/data/watch/*.csv, made by make_fixtures.py): each
// fixture's situation gives its verdict, with the figures behind it; and the table itself.
#include <gtest/gtest.h>

#include <set>

#include "core/file_io.hpp"
#include "tests/watch_test_support.hpp"
#include "watch/watch_csv.hpp"
#include "watch/watch_rules.hpp"

namespace pipecheck {
namespace {

std::vector<WatchSample> load(const std::string& name) {
  const ParsedWatchCsv parsed = parse_watch_csv(read_file(watch_test::fixture(name)));
  EXPECT_TRUE(parsed.errors.empty()) << name << ": " << parsed.errors.front();
  return parsed.samples;
}

WatchVerdict judge_fixture(const std::string& name, WatchAnalysis* out = nullptr,
                           const MeasuredCeilings* ceilings = nullptr) {
  const WatchAnalysis analysis = analyze_watch(load(name), ceilings, watch_analysis_options());
  if (out) *out = analysis;
  return judge_watch(analysis);
}

std::string headline(const WatchVerdict& v) { return v.headline ? v.headline->rule : "(none)"; }

bool fired(const WatchVerdict& v, const std::string& rule) {
  for (const auto& f : v.findings) {
    if (f.rule == rule) return true;
  }
  return false;
}

std::string all_figures(const WatchFinding& f) {
  std::string text;
  for (const auto& line : f.figures) text += line + "\n";
  return text;
}

TEST(WatchRules, BusyButNotLoaded) {
  const WatchVerdict v = judge_fixture("gpu_busy_not_loaded.csv");
  EXPECT_EQ(headline(v), "busy_not_loaded");
  EXPECT_NE(all_figures(*v.headline).find("limit = 2"), std::string::npos) << all_figures(*v.headline);
  EXPECT_FALSE(fired(v, "compute_bound"));
}

TEST(WatchRules, ComputeBound) {
  const WatchVerdict v = judge_fixture("gpu_compute_bound.csv");
  EXPECT_EQ(headline(v), "compute_bound");
  EXPECT_NE(v.headline->verdict.find("healthy"), std::string::npos);
  EXPECT_NE(all_figures(*v.headline).find("SwPowerCap in 100%"), std::string::npos) << all_figures(*v.headline);
}

TEST(WatchRules, StragglerSawtooth) {
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("gpu_straggler.csv", &a);
  EXPECT_EQ(headline(v), "gpu_straggler_sawtooth");
  EXPECT_EQ(a.sawtooth.leader, 2);
  EXPECT_NE(v.headline->verdict.find("gpu2"), std::string::npos) << v.headline->verdict;
  EXPECT_NEAR(a.sawtooth.mean_lead_s, 1.0, 0.01);
}

TEST(WatchRules, PeriodicIdleGivesPeriodAndShareLost) {
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("gpu_periodic.csv", &a);
  ASSERT_TRUE(a.periodic.found);
  EXPECT_NEAR(a.periodic.period_s, 20, 0.01);
  EXPECT_NEAR(a.periodic.idle_share, 0.2, 0.04);
  ASSERT_TRUE(fired(v, "periodic_idle"));
  // Outside the idle episodes the GPU is at its power limit: that stays the verdict.
  EXPECT_EQ(headline(v), "compute_bound");
  for (const auto& f : v.findings) {
    if (f.rule == "periodic_idle") {
      EXPECT_NE(f.verdict.find("every 20.0 s"), std::string::npos) << f.verdict;
    }
  }
}

TEST(WatchRules, InputSingleProcess) {
  const WatchVerdict v = judge_fixture("gpu_input_single_process.csv");
  EXPECT_EQ(headline(v), "input_single_process");
  EXPECT_NE(v.headline->verdict.find("num_workers=0"), std::string::npos);
  EXPECT_NE(all_figures(*v.headline).find("python:4242"), std::string::npos);
}

TEST(WatchRules, StorageBoundAgainstTheMeasuredCeiling) {
  const MeasuredCeilings ceilings = load_measured_ceilings(watch_test::fixture("baseline_run"));
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("gpu_storage_bound.csv", &a, &ceilings);
  EXPECT_EQ(headline(v), "storage_bound");
  EXPECT_NE(v.headline->verdict.find("sda"), std::string::npos);
  const std::string figures = all_figures(*v.headline);
  EXPECT_NE(figures.find("reads 182 MB/s from sda"), std::string::npos) << figures;
  EXPECT_NE(figures.find("= 95.7% of its measured 190 MB/s"), std::string::npos) << figures;
  // 125 KB reads: their IOPS are not held against the 4 KiB random-read IOPS.
  for (const auto& c : a.comparisons) EXPECT_NE(c.unit, "IOPS") << c.text;
  // The PCIe RX of the fixture (1200 MB/s) against the measured 25.1 GB/s.
  bool pcie = false;
  for (const auto& c : a.comparisons) pcie = pcie || (c.stage == "pcie" && c.subject == "gpu0");
  EXPECT_TRUE(pcie);
}

TEST(WatchRules, StorageBoundWithoutBaselineByUtilization) {
  const WatchVerdict v = judge_fixture("gpu_storage_bound.csv");
  EXPECT_EQ(headline(v), "storage_bound");
  EXPECT_NE(all_figures(*v.headline).find("sda is busy 97"), std::string::npos) << all_figures(*v.headline);
}

TEST(WatchRules, ABusyDiskTheJobDoesNotReadIsNotItsBottleneck) {
  std::vector<WatchSample> samples = load("gpu_storage_bound.csv");
  for (auto& s : samples) s.job.read_mbs = 0.0;  // another process keeps sda busy
  const WatchVerdict quiet = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_FALSE(fired(quiet, "storage_bound")) << headline(quiet);
  // Where the job's counters cannot be read (another user's job), its disk reading all the
  // time is the evidence.
  for (auto& s : samples) s.job.read_mbs.reset();
  const WatchVerdict unreadable = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_EQ(headline(unreadable), "storage_bound");
}

TEST(WatchRules, SingleThreadedCpuBoundWithoutGpu) {
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("cpu_single_thread.csv", &a);
  EXPECT_FALSE(a.has_gpu);
  EXPECT_EQ(headline(v), "cpu_single_thread");
  // Half a core on a loaded machine, yet runnable all the time: CPU bound all the same.
  EXPECT_LT(a.job.top_cpu_median, 70);
}

TEST(WatchRules, TooShortToJudge) {
  std::vector<WatchSample> samples = load("gpu_compute_bound.csv");
  samples.resize(3);
  const WatchVerdict v = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_EQ(headline(v), "too_short");
  EXPECT_EQ(v.findings.size(), 1u);
}

TEST(WatchRules, TableListsEveryRuleOnceWithItsThresholds) {
  std::set<std::string> ids;
  for (const auto& rule : watch_rules()) {
    EXPECT_TRUE(ids.insert(rule.id).second) << rule.id;
    EXPECT_FALSE(rule.condition.empty()) << rule.id;
    EXPECT_NE(rule.judge, nullptr) << rule.id;
  }
  EXPECT_EQ(ids.size(), 15u);
  const std::string table = render_rules_table();
  for (const auto& id : ids) EXPECT_NE(table.find(id), std::string::npos) << id;
  EXPECT_NE(table.find("GPU util < 50%"), std::string::npos) << table;
  EXPECT_NE(table.find("power < 60% of the limit"), std::string::npos) << table;
}

}  // namespace
}  // namespace pipecheck
