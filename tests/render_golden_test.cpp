// Every renderer against its golden output for both recorded results folders (STYLE 9):
// PIPECHECK_UPDATE_GOLDEN=1 rewrites them after an intended change; review the diff.
#include <gtest/gtest.h>

#include "render/render_html.hpp"
#include "render/render_junit.hpp"
#include "render/render_markdown.hpp"
#include "render/render_prometheus.hpp"
#include "render/summary_table.hpp"
#include "tests/render_test_data.hpp"

namespace pipecheck {
namespace {

using testing::expect_golden;
using testing::golden_folder;
using testing::load_recorded_run;

class RenderGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(RenderGolden, Html) {
  const auto run = load_recorded_run(GetParam());
  expect_golden(render_html(run.report, run.inventory, run.report.judged, run.extras),
                golden_folder(GetParam()) / "report.html");
}

TEST_P(RenderGolden, Markdown) {
  const auto run = load_recorded_run(GetParam());
  expect_golden(render_markdown(run.report, run.inventory, run.report.judged, run.extras),
                golden_folder(GetParam()) / "report.md");
}

TEST_P(RenderGolden, Prometheus) {
  const auto run = load_recorded_run(GetParam());
  expect_golden(render_prometheus(run.report, run.inventory, run.report.judged, run.extras),
                golden_folder(GetParam()) / "pipecheck.prom");
}

TEST_P(RenderGolden, Junit) {
  const auto run = load_recorded_run(GetParam());
  expect_golden(render_junit(run.report, run.inventory, run.report.judged, run.extras),
                golden_folder(GetParam()) / "junit.xml");
}

// The terminal table at the widths people have: 80 columns (two lines a row) and 120 (one).
TEST_P(RenderGolden, TerminalSummaryAt80Columns) {
  const auto run = load_recorded_run(GetParam());
  expect_golden(render_summary(run.report, run.report.judged, SummaryStyle{false, 80}),
                golden_folder(GetParam()) / "summary-80.txt");
}

TEST_P(RenderGolden, TerminalSummaryAt120Columns) {
  const auto run = load_recorded_run(GetParam());
  expect_golden(render_summary(run.report, run.report.judged, SummaryStyle{false, 120}),
                golden_folder(GetParam()) / "summary-120.txt");
}

INSTANTIATE_TEST_SUITE_P(RecordedRuns, RenderGolden, ::testing::Values("h200", "host"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// Why each figure stopped repeating, in report.md and report.html: a report that kept it gets one row a figure;
// one that did not (the recorded runs above) gets no section.
TEST(RenderRepetitions, EachFigureSaysWhyItStopped) {
  auto run = testing::load_recorded_run("host");
  const std::string before = render_markdown(run.report, run.inventory, run.report.judged, run.extras);
  EXPECT_EQ(before.find("## Repetitions"), std::string::npos);
  Measurement& m = run.report.probes.front().measurements.front();
  m.repetitions = {1, 2, 3, 4, 5};
  m.stopping = "verdict decided after 5 repetitions: pass at both ends; 1.2 s for its group of 2";
  const std::string after = render_markdown(run.report, run.inventory, run.report.judged, run.extras);
  const auto section = after.find("## Repetitions");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(after.find("| " + m.what + " | 5 | verdict decided after 5 repetitions: pass at both ends; 1.2 s for its group of 2 |",
                       section),
            std::string::npos)
      << after.substr(section);
  const std::string html = render_html(run.report, run.inventory, run.report.judged, run.extras);
  EXPECT_NE(html.find("<td class=\"why\">verdict decided after 5 repetitions: pass at both ends; 1.2 s for its group of 2</td>"),
            std::string::npos);
  const auto unkept = testing::load_recorded_run("host");
  EXPECT_EQ(render_html(unkept.report, unkept.inventory, unkept.report.judged, unkept.extras).find("id=\"repetitions\""),
            std::string::npos);
}

}  // namespace
}  // namespace pipecheck
