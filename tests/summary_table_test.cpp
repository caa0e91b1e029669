// The terminal summary against a golden file rendered from a recorded report
// (set PIPECHECK_UPDATE_GOLDEN=1 to rewrite it after an intended change, then review the diff).
#include "reports/summary_table.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "core/file_io.hpp"

namespace pipecheck {
namespace {

const std::string kGolden = std::string(PIPECHECK_TEST_DATA) + "/golden";

Report golden_report() {
  return report_from_json(nlohmann::json::parse(read_file(kGolden + "/report.json")));
}

TEST(SummaryTable, MatchesGolden) {
  const std::string rendered = render_summary(golden_report(), false);
  if (std::getenv("PIPECHECK_UPDATE_GOLDEN") != nullptr) {
    write_file_atomically(kGolden + "/summary.txt", rendered);
  }
  EXPECT_EQ(rendered, read_file(kGolden + "/summary.txt"));
}

TEST(SummaryTable, FitsInOneHundredColumns) {
  std::istringstream lines(render_summary(golden_report(), false));
  std::string line;
  int table_rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("  [", 0) == 0) continue;  // ceiling notes may wrap in the terminal
    EXPECT_LE(line.size(), 100u) << line;
    ++table_rows;
  }
  EXPECT_GT(table_rows, 5);
}

TEST(SummaryTable, ColourOnlyWhenAsked) {
  EXPECT_EQ(render_summary(golden_report(), false).find('\033'), std::string::npos);
  EXPECT_NE(render_summary(golden_report(), true).find('\033'), std::string::npos);
}

TEST(FormatFigure, ThreeSignificantFigures) {
  EXPECT_EQ(format_figure(1234.4), "1234");
  EXPECT_EQ(format_figure(17.912), "17.9");
  EXPECT_EQ(format_figure(1.234), "1.23");
  EXPECT_EQ(format_figure(0.0), "0.00");
}

}  // namespace
}  // namespace pipecheck
