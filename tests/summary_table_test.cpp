// The terminal summary: golden files rendered from recorded reports (set PIPECHECK_UPDATE_GOLDEN=1
// to rewrite them after an intended change, then review the diff), the table fitted to the width
// it is given with nothing cut, the verdict column, findings and the overall verdict.
#include "render/summary_table.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "core/file_io.hpp"
#include "render/render_support.hpp"
#include "render/text_wrap.hpp"
#include "tests/render_test_data.hpp"

namespace pipecheck {
namespace {

const std::string kGolden = std::string(PIPECHECK_TEST_DATA) + "/golden";

// A report written before verdicts existed: the table renders without the verdict column.
Report unjudged_report() {
  return report_from_json(nlohmann::json::parse(read_file(kGolden + "/report.json")));
}

TEST(SummaryTable, MatchesGolden) {
  testing::expect_golden(render_summary(unjudged_report(), SummaryStyle{}), kGolden + "/summary.txt");
}

// Whether the words of each text appear in `out` in order, one text after the other: nothing of
// a label is dropped or cut, however it was wrapped.
void expect_words_in_order(const std::string& out, const std::vector<std::string>& texts) {
  std::size_t cursor = 0;
  for (const auto& text : texts) {
    std::istringstream words(text);
    std::string word;
    while (words >> word) {
      const auto at = out.find(word, cursor);
      ASSERT_NE(at, std::string::npos) << "'" << word << "' of '" << text << "' missing:\n" << out;
      cursor = at + word.size();
    }
  }
}

std::size_t widest_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::size_t widest = 0;
  while (std::getline(lines, line)) widest = std::max(widest, display_width(line));
  return widest;
}

// Labels that differ only at the end, longer than any column: the part that tells them apart
// must be on screen at every width.
Report long_labels() {
  Report report;
  ProbeOutcome probe;
  probe.stage = "decode";
  probe.status = ProbeStatus::ok;
  for (const char* what : {"decode + resize, DCT-scaled first, then antialiased bilinear to 640x640 (progressive), 1 thread",
                           "decode + resize, DCT-scaled first, then antialiased bilinear to 640x640 (progressive), 2 threads",
                           "pread 128\u00a0KiB 1\u00a0thread (num_workers=0), cold cache, on /data/train-00001"}) {
    Measurement m;
    m.key = what;
    m.stage = "decode";
    m.what = what;
    m.unit = "images/s";
    m.stats = {412, 400, 420, 5};
    m.ceiling = CeilingResult::known({824, "images/s", "linear scaling", "824 images/s = 2 x 412"});
    m.percent_of_ceiling = 50;
    probe.measurements.push_back(m);
  }
  report.probes.push_back(probe);
  return report;
}

TEST(SummaryTable, FitsItsWidthAndCutsNothing) {
  for (int width : {60, 80, 100, 120, 160}) {
    SCOPED_TRACE(width);
    for (const char* name : {"h200", "host"}) {
      SCOPED_TRACE(name);
      const auto run = testing::load_recorded_run(name);
      const std::string text = render_summary(run.report, run.report.judged, SummaryStyle{false, width});
      EXPECT_LE(widest_line(text), static_cast<std::size_t>(width)) << text;
      std::vector<std::string> whats;
      for (const auto& stage : stages_in_pipeline_order(run.report)) {
        for (const Measurement* m : measurements_of(run.report, stage)) whats.push_back(m->what);
      }
      expect_words_in_order(text, whats);
    }
    const Report report = long_labels();
    const std::string text = render_summary(report, Judged{}, SummaryStyle{false, width});
    EXPECT_LE(widest_line(text), static_cast<std::size_t>(width)) << text;
    expect_words_in_order(text, {report.probes[0].measurements[0].what, report.probes[0].measurements[1].what,
                                 report.probes[0].measurements[2].what});
    EXPECT_EQ(text.find('~'), std::string::npos) << "a cut mark:\n" << text;
  }
}

TEST(SummaryTable, CeilingsCarryTheirUnitAndTheColumnsAreExplained) {
  const auto run = testing::load_recorded_run("h200");
  const std::string text = render_summary(run.report, run.report.judged, SummaryStyle{false, 120});
  EXPECT_NE(text.find("824 images/s [5]"), std::string::npos) << text;
  EXPECT_NE(text.find("63.0 GB/s [16]"), std::string::npos);
  EXPECT_NE(text.find("+/- the wider side of their spread around it, in % of the median"), std::string::npos);
  EXPECT_EQ(text.rfind("stage    what ", 0), 0u);
  EXPECT_NE(text.find("  median    +/-  ceiling "), std::string::npos);
}

// Below the width a one-line row needs, each row takes two lines: the what, then the figures.
TEST(SummaryTable, NarrowTerminalsGetTwoLinesARow) {
  const auto run = testing::load_recorded_run("h200");
  const std::string text = render_summary(run.report, run.report.judged, SummaryStyle{false, 80});
  EXPECT_EQ(text.rfind("stage    what\n", 0), 0u) << text.substr(0, 300);
  EXPECT_NE(text.find("\ncompute  BF16 GEMM, GPU 5\n"), std::string::npos);
  const auto row = text.find("\ncompute  BF16 GEMM, GPU 5\n");
  const std::string figures = text.substr(row + 27, text.find('\n', row + 27) - row - 27);
  EXPECT_NE(figures.find("655 TFLOP/s"), std::string::npos) << figures;
  EXPECT_EQ(figures.substr(figures.size() - 4), "FAIL");
}

TEST(SummaryTable, ShowsVerdictsFindingsAndOverall) {
  const auto run = testing::load_recorded_run("h200");
  const std::string text = render_summary(run.report, run.report.judged, SummaryStyle{});
  EXPECT_NE(text.find("% ceil  verdict\n"), std::string::npos);
  // The sick GPU's BF16 row ends in FAIL; a healthy one in pass.
  std::istringstream lines(text);
  std::string line;
  bool sick = false, healthy = false;
  while (std::getline(lines, line)) {
    if (line.find("BF16 GEMM, GPU 5") != std::string::npos) sick = line.size() >= 4 && line.substr(line.size() - 4) == "FAIL";
    if (line.find("BF16 GEMM, GPU 0") != std::string::npos) healthy = line.substr(line.size() - 4) == "pass";
  }
  EXPECT_TRUE(sick);
  EXPECT_TRUE(healthy);
  EXPECT_NE(text.find("\nFindings:\n  FAIL    GPU 5 (0000:ab:00.0) reaches 655 TFLOP/s BF16"), std::string::npos);
  EXPECT_NE(text.find("\nOther checks:\n"), std::string::npos);
  EXPECT_NE(text.find("GPU 3 PCIe link (0000:5d:00.0): trained at 16 GT/s x16"), std::string::npos);
  EXPECT_NE(text.find("\nPipeline budget ("), std::string::npos);
  EXPECT_NE(text.find("storage  "), std::string::npos);
  EXPECT_EQ(text.substr(text.rfind("\nOverall: ")), "\nOverall: FAIL (" + counts_text(count_verdicts(run.report.judged)) + ")\n");
}

TEST(SummaryTable, UnjudgedReportHasNoVerdictColumn) {
  const std::string text = render_summary(unjudged_report(), SummaryStyle{});
  EXPECT_EQ(text.find("verdict"), std::string::npos);
  EXPECT_EQ(text.find("Overall:"), std::string::npos);
}

TEST(SummaryTable, ColourOnlyWhenAsked) {
  const auto run = testing::load_recorded_run("h200");
  EXPECT_EQ(render_summary(run.report, run.report.judged, SummaryStyle{}).find('\033'), std::string::npos);
  EXPECT_NE(render_summary(run.report, run.report.judged, SummaryStyle{true}).find("\033[31mFAIL\033[0m"), std::string::npos);
}

TEST(FormatFigure, ThreeSignificantFigures) {
  EXPECT_EQ(format_figure(1234.4), "1234");
  EXPECT_EQ(format_figure(17.912), "17.9");
  EXPECT_EQ(format_figure(1.234), "1.23");
  EXPECT_EQ(format_figure(0.0), "0.00");
}

}  // namespace
}  // namespace pipecheck
