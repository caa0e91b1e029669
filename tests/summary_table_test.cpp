// The terminal summary: golden files rendered from recorded reports (set PIPECHECK_UPDATE_GOLDEN=1
// to rewrite them after an intended change, then review the diff), the 100-column limit with the
// verdict column, findings and the overall verdict.
#include "reports/render/summary_table.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "core/file_io.hpp"
#include "tests/render_test_data.hpp"

namespace pipecheck {
namespace {

const std::string kGolden = std::string(PIPECHECK_TEST_DATA) + "/golden";

// A report written before verdicts existed: the table renders without the verdict column.
Report unjudged_report() {
  return report_from_json(nlohmann::json::parse(read_file(kGolden + "/report.json")));
}

TEST(SummaryTable, MatchesGolden) {
  testing::expect_golden(render_summary(unjudged_report(), false), kGolden + "/summary.txt");
}

TEST(SummaryTable, FitsInOneHundredColumns) {
  for (const char* name : {"h200", "host"}) {
    SCOPED_TRACE(name);
    const auto run = testing::load_recorded_run(name);
    std::istringstream lines(render_summary(run.report, run.report.judged, false));
    std::string line;
    int table_rows = 0;
    while (std::getline(lines, line)) {
      EXPECT_LE(line.size(), 100u) << line;
      ++table_rows;
    }
    EXPECT_GT(table_rows, 5);
  }
}

TEST(SummaryTable, ShowsVerdictsFindingsAndOverall) {
  const auto run = testing::load_recorded_run("h200");
  const std::string text = render_summary(run.report, run.report.judged, false);
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
  const std::string text = render_summary(unjudged_report(), false);
  EXPECT_EQ(text.find("verdict"), std::string::npos);
  EXPECT_EQ(text.find("Overall:"), std::string::npos);
}

TEST(SummaryTable, ColourOnlyWhenAsked) {
  const auto run = testing::load_recorded_run("h200");
  EXPECT_EQ(render_summary(run.report, run.report.judged, false).find('\033'), std::string::npos);
  EXPECT_NE(render_summary(run.report, run.report.judged, true).find("\033[31mFAIL\033[0m"), std::string::npos);
}

TEST(FormatFigure, ThreeSignificantFigures) {
  EXPECT_EQ(format_figure(1234.4), "1234");
  EXPECT_EQ(format_figure(17.912), "17.9");
  EXPECT_EQ(format_figure(1.234), "1.23");
  EXPECT_EQ(format_figure(0.0), "0.00");
}

}  // namespace
}  // namespace pipecheck
