// Comparing two runs: the noise rule at its boundaries (ranges, repetitions, threshold), the
// direction of "better" per unit, new / missing keys, and the text and Markdown renderings
// against a golden file of the recorded runs in tests/data/compare.
#include "reports/compare.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/file_io.hpp"
#include "reports/baseline.hpp"
#include "reports/render/compare_text.hpp"

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
  const auto c = change_of(rate("k/a", 100, 100, 100, 1), rate("k/a", 50, 50, 50, 1));
  EXPECT_EQ(c.kind, ChangeKind::unchanged);
  EXPECT_EQ(c.reason, "too few repetitions to tell (1 vs 1)");
  // 3 vs 3 (quick mode) is the fewest that can: chance 0.1.
  EXPECT_EQ(change_of(rate("k/a", 100, 99, 101, 3), rate("k/a", 50, 49, 51, 3)).kind, ChangeKind::regressed);
  EXPECT_EQ(change_of(rate("k/a", 100, 99, 101, 2), rate("k/a", 50, 49, 51, 3)).kind, ChangeKind::unchanged);
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
