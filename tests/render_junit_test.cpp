// JUnit XML: one testcase per verdict, failures and skips counted right on every level, warn
// and info passing with their explanation in system-out.
#include "reports/render/render_junit.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "tests/render_test_data.hpp"

namespace pipecheck {
namespace {

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

Judged mixed_verdicts() {
  Judged judged;
  judged.judgements = {
      {"compute/gemm/bf16/gpu0", "compute", "BF16", Verdict::pass, "r", "fine"},
      {"compute/gemm/bf16/gpu1", "compute", "BF16", Verdict::fail, "r", "66% < 70%"},
      {"compute/gemm/fp8/gpu0", "compute", "FP8", Verdict::warn, "r", "close to the line"},
      {"pcie/h2d/pinned/gpu0", "pcie", "H2D", Verdict::fail, "r", "link downtrained"},
      {"pcie/h2d/pageable/gpu0", "pcie", "H2D pageable", Verdict::info, "", "not judged"},
      {"probe/comm", "comm", "NCCL", Verdict::skipped, "", "one GPU"},
      {"hostmem/read/threads:2", "hostmem", "read", Verdict::pass, "r", "fine"},
  };
  judged.overall = Verdict::fail;
  return judged;
}

TEST(RenderJunit, CountsAddUpOnEveryLevel) {
  const std::string xml = render_junit(Report{}, Inventory{}, mixed_verdicts(), RenderExtras{});
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  EXPECT_NE(xml.find("<testsuites name=\"pipecheck \" tests=\"7\" failures=\"2\" errors=\"0\" skipped=\"1\""),
            std::string::npos) << xml;
  EXPECT_EQ(count_of(xml, "<testcase "), 7);
  EXPECT_EQ(count_of(xml, "<failure "), 2);
  EXPECT_EQ(count_of(xml, "<skipped "), 1);
  EXPECT_EQ(count_of(xml, "<system-out>"), 2);  // warn and info
  EXPECT_NE(xml.find("<testsuite name=\"compute\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"comm\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase classname=\"pcie\" name=\"pcie/h2d/pinned/gpu0\" time=\"0\">\n"
                     "      <failure message=\"link downtrained\" type=\"fail\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<system-out>warn: FP8\nclose to the line\nrule: r</system-out>"), std::string::npos);
  // Balanced elements: every opened suite and case is closed.
  EXPECT_EQ(count_of(xml, "<testsuite "), count_of(xml, "</testsuite>"));
  EXPECT_EQ(count_of(xml, "<testcase "), count_of(xml, "</testcase>"));
}

TEST(RenderJunit, RecordedRunHasOneTestcasePerVerdict) {
  for (const char* name : {"h200", "host"}) {
    SCOPED_TRACE(name);
    const auto run = testing::load_recorded_run(name);
    const std::string xml = render_junit(run.report, run.inventory, run.report.judged, run.extras);
    const auto counts = count_verdicts(run.report.judged);
    EXPECT_EQ(count_of(xml, "<testcase "), counts.total());
    EXPECT_EQ(count_of(xml, "<failure "), counts.fail);
    EXPECT_EQ(count_of(xml, "<skipped "), counts.skipped);
    std::smatch match;
    ASSERT_TRUE(std::regex_search(xml, match, std::regex("<testsuites [^>]*tests=\"([0-9]+)\" failures=\"([0-9]+)\"")));
    EXPECT_EQ(std::stoi(match[1]), counts.total());
    EXPECT_EQ(std::stoi(match[2]), counts.fail);
  }
}

}  // namespace
}  // namespace pipecheck
