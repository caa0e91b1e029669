// Comparing two runs: the noise rule at its boundaries (ranges, repetitions, threshold), the
// direction of "better" per unit, new / missing keys, and the text and Markdown renderings
// against a golden file of the recorded runs in tests/data/compare.
#include "compare/compare.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/file_io.hpp"
#include "compare/baseline.hpp"
#include "render/compare_text.hpp"

namespace pipecheck {
namespace {

const std::string kData = std::string(PIPECHECK_TEST_DATA) + "/compare/";

Measurement rate(const std::string& key, double median, double min, double max, int samples = 5,
                 const std::string& unit = "GB/s") {
  Measurement m;
  m.key = key;
  m.stage = key.substr(0, key.find('/'));
  m.what = key;
  m.unit = unit;
  m.stats = {median, min, max, samples};
  return m;
}

MeasurementChange change_of(const Measurement& before, const Measurement& after,
                            const CompareOptions& options = {}) {
  return compare_measurement(&before, &after, options);
}

Report run_of(const std::string& probe_name, ProbeStatus status, std::vector<Measurement> measurements,
              const std::string& reason = "") {
  Report report;
  report.host = "node-a";
  ProbeOutcome probe;
  probe.probe = probe_name;
  probe.stage = "hostmem";
  probe.status = status;
  probe.reason = reason;
  probe.measurements = std::move(measurements);
  report.probes.push_back(probe);
  return report;
}

// `compare <ok run> <run whose probe timed out>` said "no regression beyond noise (... missing)"
// and exited 0: what a failed probe lost is a regression.
TEST(CompareGates, MeasurementsLostToAFailedProbeAreARegression) {
  const Report before = run_of("pipecheck-hostmem", ProbeStatus::ok,
                               {rate("hostmem/memcpy", 18.7, 18.2, 19.0), rate("hostmem/read", 30, 29, 31)});
  const Report after = run_of("pipecheck-hostmem", ProbeStatus::failed, {}, "timed out after 600 s");
  const Comparison comparison = compare_reports(before, after);
  EXPECT_EQ(comparison.exit_code(), ExitCode::failed);
  EXPECT_EQ(comparison.count(ChangeKind::regressed), 2);
  EXPECT_NE(comparison.changes[0].reason.find("timed out after 600 s"), std::string::npos);
  EXPECT_NE(render_comparison_text(comparison).find("REGRESSION"), std::string::npos);
}

TEST(CompareGates, MeasurementsLostToAnInterruptedProbeAreInconclusive) {
  const Report before = run_of("pipecheck-hostmem", ProbeStatus::ok,
                               {rate("hostmem/memcpy", 18.7, 18.2, 19.0), rate("hostmem/read", 30, 29, 31)});
  const Report after = run_of("pipecheck-hostmem", ProbeStatus::interrupted, {});
  EXPECT_EQ(compare_reports(before, after).exit_code(), ExitCode::inconclusive);
}

// Two runs with no measurement in common: "no regression" claimed what was never looked at.
TEST(CompareGates, NothingComparedIsInconclusive) {
  const Report before = run_of("pipecheck-hostmem", ProbeStatus::ok, {rate("hostmem/memcpy", 18.7, 18.2, 19.0)});
  const Report after = run_of("pipecheck-decode", ProbeStatus::ok, {rate("decode/full", 400, 390, 410)});
  const Comparison comparison = compare_reports(before, after);
  EXPECT_TRUE(comparison.nothing_compared());
  EXPECT_EQ(comparison.exit_code(), ExitCode::inconclusive);
  EXPECT_NE(render_comparison_text(comparison).find("nothing was compared"), std::string::npos);
  EXPECT_EQ(compare_reports(Report{}, Report{}).exit_code(), ExitCode::inconclusive);
}

TEST(CompareNoise, DisjointRangesChanceIsExactRankTest) {
  EXPECT_NEAR(disjoint_ranges_p_value(5, 5), 2.0 / 252, 1e-12);  // C(10,5) = 252
  EXPECT_NEAR(disjoint_ranges_p_value(3, 3), 0.1, 1e-12);        // C(6,3) = 20
  EXPECT_NEAR(disjoint_ranges_p_value(3, 5), 2.0 / 56, 1e-12);
  EXPECT_DOUBLE_EQ(disjoint_ranges_p_value(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(disjoint_ranges_p_value(0, 5), 1.0);
}

TEST(CompareNoise, RegressionBeyondNoise) {
  const auto c = change_of(rate("hostmem/memcpy", 18.7, 18.2, 19.0), rate("hostmem/memcpy", 15.0, 14.6, 15.3));
  EXPECT_EQ(c.kind, ChangeKind::regressed);
  ASSERT_TRUE(c.change_percent.has_value());
  EXPECT_NEAR(*c.change_percent, -19.786, 0.001);
  EXPECT_TRUE(c.ranges_disjoint);
  ASSERT_TRUE(c.p_value.has_value());
  EXPECT_NEAR(*c.p_value, 2.0 / 252, 1e-12);
}

TEST(CompareNoise, LargeChangeWithOverlappingRangesIsWithinNoise) {
  // The median fell 10%, but one repetition of the new run reached the baseline's range.
  const auto c = change_of(rate("hostmem/memcpy", 100, 95, 105), rate("hostmem/memcpy", 90, 80, 96));
  EXPECT_EQ(c.kind, ChangeKind::unchanged);
  EXPECT_FALSE(c.ranges_disjoint);
  EXPECT_NEAR(*c.change_percent, -10.0, 1e-9);
  EXPECT_EQ(c.reason, "within noise: ranges overlap");
}

TEST(CompareNoise, ThresholdBoundary) {
  // Disjoint ranges, change exactly at the 3% threshold: counts; just under it: does not.
  const auto at = change_of(rate("k/a", 100, 99.5, 100.5), rate("k/a", 97, 96.5, 97.5));
  EXPECT_EQ(at.kind, ChangeKind::regressed);
  const auto under = change_of(rate("k/a", 100, 99.5, 100.5), rate("k/a", 97.1, 96.6, 97.6));
  EXPECT_EQ(under.kind, ChangeKind::unchanged);
  EXPECT_EQ(under.reason, "below the 3% threshold");
  CompareOptions loose;
  loose.threshold_percent = 5;
  EXPECT_EQ(change_of(rate("k/a", 100, 99.5, 100.5), rate("k/a", 96, 95.5, 96.5), loose).kind,
            ChangeKind::unchanged);
}

TEST(CompareNoise, SingleRepetitionsNeverDecide) {
  // Runs recorded before repetitions were kept: the range rule. A halving seen once is not a
  // regression; it is as large as one, so the comparison cannot tell (inconclusive, exit 4).
  const auto c = change_of(rate("k/a", 100, 100, 100, 1), rate("k/a", 50, 50, 50, 1));
  EXPECT_EQ(c.kind, ChangeKind::inconclusive);
  EXPECT_TRUE(c.would_regress);
  EXPECT_EQ(c.rule, "range rule");
  EXPECT_EQ(c.reason, "too few repetitions to tell: n=1 vs 1");
  // 3 vs 3 (the old quick mode) is the fewest the range rule lets decide: chance 0.1.
  EXPECT_EQ(change_of(rate("k/a", 100, 99, 101, 3), rate("k/a", 50, 49, 51, 3)).kind, ChangeKind::regressed);
  EXPECT_EQ(change_of(rate("k/a", 100, 99, 101, 2), rate("k/a", 50, 49, 51, 3)).kind, ChangeKind::inconclusive);
  // Better by as much is only unchanged: nothing to worry about.
  EXPECT_EQ(change_of(rate("k/a", 50, 50, 50, 1), rate("k/a", 100, 100, 100, 1)).kind, ChangeKind::unchanged);
}

TEST(CompareNoise, RatesAreBetterHigherTimesLower) {
  for (const char* unit : {"GB/s", "TFLOP/s", "IOPS", "images/s", "items/s"}) {
    EXPECT_TRUE(higher_is_better(unit)) << unit;
  }
  for (const char* unit : {"ns", "us", "ms", "s"}) EXPECT_FALSE(higher_is_better(unit)) << unit;
  EXPECT_EQ(change_of(rate("k/a", 100, 99, 101), rate("k/a", 120, 119, 121)).kind, ChangeKind::improved);
  // Latency up 20% is a regression.
  EXPECT_EQ(change_of(rate("k/lat", 100, 99, 101, 5, "us"), rate("k/lat", 120, 119, 121, 5, "us")).kind,
            ChangeKind::regressed);
}

TEST(CompareNoise, NewMissingAndChangedUnit) {
  const Measurement a = rate("k/a", 1, 1, 1);
  EXPECT_EQ(compare_measurement(nullptr, &a, {}).kind, ChangeKind::added);
  EXPECT_EQ(compare_measurement(&a, nullptr, {}).kind, ChangeKind::missing);
  const Measurement iops = rate("k/a", 1, 1, 1, 5, "IOPS");
  const auto c = compare_measurement(&a, &iops, {});
  EXPECT_EQ(c.kind, ChangeKind::incomparable);
  EXPECT_EQ(c.reason, "unit changed from GB/s to IOPS");
  EXPECT_STREQ(to_string(ChangeKind::added), "new");
}

// A measurement with every repetition kept (report.json version 2).
Measurement repeated(const std::string& key, std::vector<double> reps, const std::string& unit = "images/s") {
  Measurement m = rate(key, 0, 0, 0, 0, unit);
  m.repetitions = std::move(reps);
  m.stats = summarize(m.repetitions);
  attach_spread(m);
  return m;
}

std::vector<double> around(double center, int n, double spread_percent = 1.0) {
  std::vector<double> values;
  for (int i = 0; i < n; ++i) values.push_back(center * (1 + spread_percent / 100 * ((i % 5) - 2) / 2.0));
  return values;
}

Report one_probe(std::vector<Measurement> ms, std::optional<RunConditions> conditions = std::nullopt) {
  Report report;
  report.probes.push_back({"pipecheck-decode", "decode", ProbeStatus::ok, "", 1, std::move(ms), {}});
  report.probes.back().conditions = conditions;
  return report;
}

TEST(CompareRanks, ShiftBeyondNoiseIsARegression) {
  const auto c = change_of(repeated("decode/full/threads:1", around(100, 10)), repeated("decode/full/threads:1", around(90, 10)));
  EXPECT_EQ(c.rule, "rank test");
  EXPECT_EQ(c.kind, ChangeKind::regressed);
  EXPECT_LT(*c.p_value, 0.001);
  EXPECT_TRUE(c.noise_percent.has_value());
  EXPECT_EQ(c.reason.rfind("beyond noise: p = ", 0), 0u) << c.reason;
}

TEST(CompareRanks, TooFewRepetitionsToTellSaysSo) {
  // The case: 3 vs 3 repetitions, 17% down. No p below 0.05 is possible with 3 vs 3.
  const auto c = change_of(repeated("decode/dct_1_2/threads:1", {102, 101, 103}), repeated("decode/dct_1_2/threads:1", {84.7, 84, 85}));
  EXPECT_EQ(c.kind, ChangeKind::inconclusive);
  EXPECT_TRUE(c.would_regress);
  EXPECT_EQ(c.reason.rfind("too few repetitions to tell: n=3 vs 3", 0), 0u) << c.reason;
  // 5 vs 5, every repetition lower: decided.
  EXPECT_EQ(change_of(repeated("k", around(100, 5)), repeated("k", around(80, 5))).kind, ChangeKind::regressed);
}

TEST(CompareRanks, ChangeMustExceedThresholdAndNoise) {
  // Significant but 2%: below the 3% threshold.
  const auto small = change_of(repeated("k", around(100, 10, 0.2)), repeated("k", around(98, 10, 0.2)));
  EXPECT_EQ(small.kind, ChangeKind::unchanged);
  EXPECT_EQ(small.reason.rfind("below the 3% threshold", 0), 0u) << small.reason;
  // Significant and 5%, but the medians' own noise (two modes 10% apart) is larger than that.
  std::vector<double> a(10, 100.0), b(10, 95.0);
  a.insert(a.end(), 10, 110.0);
  b.insert(b.end(), 10, 104.5);
  const auto noisy = change_of(repeated("k", a), repeated("k", b));
  EXPECT_LT(*noisy.q_value, 0.05);
  EXPECT_NEAR(*noisy.change_percent, -5.0, 1e-9);
  EXPECT_NEAR(*noisy.noise_percent, 6.73, 0.01);
  EXPECT_EQ(noisy.kind, ChangeKind::unchanged);
  EXPECT_EQ(noisy.reason.rfind("within the measured noise of 6.7%", 0), 0u) << noisy.reason;
}

TEST(CompareRanks, FalseDiscoveriesAreControlledAcrossTheComparison) {
  // Twenty cases: one with 5 vs 5 disjoint repetitions (p = 0.008), nineteen unchanged. Alone it
  // would be called; among twenty, q = 0.16: noise could give one such case in twenty.
  std::vector<Measurement> before, after;
  for (int i = 0; i < 20; ++i) {
    const std::string key = "k/" + std::to_string(100 + i);
    before.push_back(repeated(key, {100, 101, 102, 103, 104}));
    after.push_back(repeated(key, i == 0 ? std::vector<double>{90, 91, 92, 93, 94} : std::vector<double>{104, 100, 103, 101, 102}));
  }
  EXPECT_EQ(change_of(before[0], after[0]).kind, ChangeKind::regressed);
  const Comparison c = compare_reports(one_probe(before), one_probe(after));
  EXPECT_EQ(c.count(ChangeKind::regressed), 0);
  EXPECT_EQ(c.changes[0].kind, ChangeKind::unchanged);
  EXPECT_NEAR(*c.changes[0].q_value, 2.0 / 252 * 20, 1e-9);
  EXPECT_EQ(c.exit_code(), ExitCode::ok);
  // The same shift in every case (a real slowdown) survives the correction.
  for (auto& m : after) m = repeated(m.key, {90, 91, 92, 93, 94});
  const Comparison all = compare_reports(one_probe(before), one_probe(after));
  EXPECT_EQ(all.count(ChangeKind::regressed), 20);
  EXPECT_EQ(all.exit_code(), ExitCode::failed);
}

TEST(CompareRanks, BusyRunsAreNotComparedUnlessForced) {
  RunConditions busy;
  busy.other_cpu_percent = 187;
  busy.top_consumers = {{812, "stress-ng", 98}};
  const Report before = one_probe({repeated("decode/full/threads:2", around(100, 10))});
  const Report after = one_probe({repeated("decode/full/threads:2", around(60, 10))}, busy);
  const Comparison c = compare_reports(before, after);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].kind, ChangeKind::incomparable);
  EXPECT_TRUE(c.changes[0].would_regress);
  EXPECT_NE(c.changes[0].reason.find("187% of one core (stress-ng (pid 812) 98%)"), std::string::npos) << c.changes[0].reason;
  EXPECT_EQ(c.exit_code(), ExitCode::inconclusive);
  EXPECT_TRUE(c.inconclusive());
  CompareOptions forced;
  forced.force = true;
  const Comparison f = compare_reports(before, after, forced);
  EXPECT_EQ(f.changes[0].kind, ChangeKind::regressed);
  EXPECT_EQ(f.exit_code(), ExitCode::failed);
  EXPECT_FALSE(f.notes.empty());
  // Busy but better: not comparable, and nothing to be inconclusive about.
  const Comparison better = compare_reports(one_probe({repeated("decode/full/threads:2", around(60, 10))}),
                                            one_probe({repeated("decode/full/threads:2", around(100, 10))}, busy));
  EXPECT_EQ(better.exit_code(), ExitCode::ok);
}

TEST(CompareRanks, OlderRunWithoutRepetitionsFallsBackToTheRangeRule) {
  const auto c = change_of(rate("k/a", 100, 99, 101, 5, "images/s"), repeated("k/a", around(80, 5)));
  EXPECT_EQ(c.rule, "range rule");
  EXPECT_EQ(c.kind, ChangeKind::regressed);
}

Comparison recorded_comparison() {
  return compare_runs(load_run(kData + "baseline"), load_run(kData + "regressed"));
}

TEST(CompareReports, RecordedRunsClassifiedPerKey) {
  const Comparison c = recorded_comparison();
  std::map<std::string, ChangeKind> kinds;
  for (const auto& change : c.changes) kinds[change.key] = change.kind;
  const std::map<std::string, ChangeKind> expected = {
      {"compute/gemm/bf16/gpu0", ChangeKind::improved},
      {"decode/full/threads:1", ChangeKind::missing},
      {"decode/full/threads:2", ChangeKind::added},
      {"hostmem/memcpy/threads:1", ChangeKind::regressed},
      {"hostmem/read/threads:1", ChangeKind::unchanged},
      {"storage/randread/bs:4096", ChangeKind::unchanged},
  };
  EXPECT_EQ(kinds, expected);
  EXPECT_TRUE(c.has_regression());
  EXPECT_EQ(c.baseline.host, "node-a");
  EXPECT_TRUE(c.notes.empty());
}

TEST(CompareReports, WithinNoiseRunHasNoRegression) {
  const Comparison c = compare_runs(load_run(kData + "baseline"), load_run(kData + "within_noise"));
  EXPECT_FALSE(c.has_regression());
  EXPECT_EQ(c.count(ChangeKind::unchanged), 5);
}

TEST(CompareReports, NotesSayWhyFiguresMayDiffer) {
  Report before, after;
  before.host = "node-a";
  after.host = "node-b";
  before.mode = "standard";
  after.mode = "quick";
  before.probes.push_back({"pipecheck-storage", "storage", ProbeStatus::ok, "", 1, {}, {}});
  after.probes.push_back({"pipecheck-storage", "storage", ProbeStatus::failed, "timed out", 1, {}, {}});
  const Comparison c = compare_reports(before, after);
  ASSERT_EQ(c.notes.size(), 3u);
  EXPECT_EQ(c.notes[0], "different hosts: node-a (baseline) and node-b");
  EXPECT_NE(c.notes[1].find("different modes"), std::string::npos);
  EXPECT_EQ(c.notes[2], "probe pipecheck-storage was ok in the baseline, now failed: timed out");
}

TEST(CompareReports, JsonCarriesCountsAndEvidence) {
  const nlohmann::json j = comparison_to_json(recorded_comparison());
  EXPECT_EQ(j["schema"], "pipecheck.comparison");
  EXPECT_EQ(j["regression"], true);
  EXPECT_EQ(j["counts"]["regressed"], 1);
  EXPECT_EQ(j["counts"]["new"], 1);
  EXPECT_EQ(j["counts"]["missing"], 1);
  const auto& first = j["changes"][0];
  EXPECT_EQ(first["key"], "compute/gemm/bf16/gpu0");
  EXPECT_EQ(first["result"], "improved");
  EXPECT_EQ(first["baseline"]["samples"], 5);
}

void expect_width(const std::string& text, int width) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) EXPECT_LE(static_cast<int>(line.size()), width) << line;
}

TEST(CompareText, MatchesGoldenAndFitsWidth) {
  Comparison c = recorded_comparison();
  c.baseline.source = "baseline";  // the golden file must not hold this checkout's path
  c.current.source = "regressed";
  const std::string text = render_comparison_text(c);
  EXPECT_EQ(text, read_file(kData + "golden/comparison.txt"));
  expect_width(text, kCompareTextWidth);
  EXPECT_EQ(text.find('\033'), std::string::npos) << "colour when not asked";
}

TEST(CompareText, ColourOnlyWhenAsked) {
  const std::string text = render_comparison_text(recorded_comparison(), true);
  EXPECT_NE(text.find("\033[31mREGRESSED\033[0m"), std::string::npos);
}

TEST(CompareText, MarkdownMatchesGolden) {
  Comparison c = recorded_comparison();
  c.baseline.source = "baseline";
  c.current.source = "regressed";
  const std::string text = render_comparison_markdown(c);
  EXPECT_EQ(text, read_file(kData + "golden/comparison.md"));
  EXPECT_NE(text.find("| `hostmem/memcpy/threads:1` | GB/s | 18.7 | 15.0 | -19.8% | **REGRESSED** |"),
            std::string::npos)
      << text;
}

TEST(CompareText, LongKeysAndNotesStayWithinWidth) {
  Comparison c = recorded_comparison();
  c.changes[0].key = std::string(150, 'k');
  c.notes.push_back(std::string(60, 'a') + " " + std::string(60, 'b') + " " + std::string(130, 'c'));
  c.current.source = std::string(200, 'p');
  const std::string text = render_comparison_text(c);
  expect_width(text, kCompareTextWidth);
  // A key longer than its column (or the line) is wrapped, never cut: all 150 characters are there.
  std::string joined;  // the text without its line breaks
  for (char ch : text) {
    if (ch != '\n') joined += ch;
  }
  EXPECT_NE(joined.find(std::string(150, 'k')), std::string::npos) << text;
  EXPECT_EQ(text.find('~'), std::string::npos) << text;
  c.changes[0].key = "pcie/h2d/pinned/gpu0/remote/bytes:268435456";
  EXPECT_NE(render_comparison_text(c).find("pcie/h2d/pinned/gpu0/remote/bytes:268435456\n"), std::string::npos);
}

TEST(CompareText, FormatChange) {
  EXPECT_EQ(format_change(12.345), "+12.3%");
  EXPECT_EQ(format_change(-0.04), "-0.0%");
  EXPECT_EQ(format_change(std::nullopt), "-");
}

}  // namespace
}  // namespace pipecheck
