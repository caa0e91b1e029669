// JUnit XML: one testcase per verdict, failures and skips counted right on every level, warn
// and info passing with their explanation in system-out.
#include "render/render_junit.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "tests/render_test_data.hpp"
#include "tests/tool_runner.hpp"

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
      {"probe/storage", "storage", "pipecheck-storage", Verdict::fail, "r", "killed by signal 11", true},
      {"hostmem/write/threads:2", "hostmem", "write", Verdict::invalid, "r", "above the physical ceiling"},
      {"decode/full/threads:2", "decode", "decode", Verdict::inconclusive, "r", "load 2.1 on 2 CPUs"},
  };
  judged.overall = Verdict::fail;
  return judged;
}

TEST(RenderJunit, CountsAddUpOnEveryLevel) {
  const std::string xml = render_junit(Report{}, Inventory{}, mixed_verdicts(), RenderExtras{});
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 0), 0u);
  // junit-10.xsd allows no "skipped" on <testsuites>.
  EXPECT_NE(xml.find("<testsuites name=\"pipecheck \" tests=\"10\" failures=\"2\" errors=\"2\" time="),
            std::string::npos) << xml;
  EXPECT_EQ(count_of(xml, "<testcase "), 10);
  EXPECT_EQ(count_of(xml, "<failure "), 2);
  EXPECT_EQ(count_of(xml, "<error "), 2);  // the crashed probe and the invalid figure
  EXPECT_EQ(count_of(xml, "<skipped "), 2);  // skipped and inconclusive
  EXPECT_NE(xml.find("<error message=\"killed by signal 11\" type=\"probe_failed\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error message=\"above the physical ceiling\" type=\"invalid\">"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"inconclusive: load 2.1 on 2 CPUs\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"hostmem\" tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"0\""),
            std::string::npos);
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
    EXPECT_EQ(count_of(xml, "<failure ") + count_of(xml, "<error "), counts.fail + counts.invalid);
    EXPECT_EQ(count_of(xml, "<skipped "), counts.skipped + counts.inconclusive);
    std::smatch match;
    ASSERT_TRUE(std::regex_search(xml, match, std::regex("<testsuites [^>]*tests=\"([0-9]+)\" failures=\"([0-9]+)\"")));
    EXPECT_EQ(std::stoi(match[1]), counts.total());
    EXPECT_EQ(std::stoi(match[2]), count_of(xml, "<failure "));
  }
}

const std::string kSchema = std::string(PIPECHECK_TEST_DATA) + "/junit/junit-rules.xsd";

testing::ToolResult xmllint(const std::filesystem::path& file) {
  return testing::run_tool("xmllint --noout --schema " + kSchema + " " + file.string());
}

// The rules Jenkins' xunit plugin validates with (junit-10.xsd), in our own schema from the
// issue's attribute lists, checked by xmllint on every kind of verdict and on both recorded runs.
TEST(RenderJunit, ValidAgainstTheJunit10Rules) {
  if (testing::run_tool("xmllint --version").status != 0) GTEST_SKIP() << "xmllint not installed (libxml2-utils)";
  const auto folder = testing::fresh_temp_folder("junit");
  std::vector<std::pair<std::string, std::string>> documents = {
      {"mixed", render_junit(Report{}, Inventory{}, mixed_verdicts(), RenderExtras{})},
      {"empty", render_junit(Report{}, Inventory{}, Judged{}, RenderExtras{})}};
  for (const char* name : {"h200", "host"}) {
    const auto run = testing::load_recorded_run(name);
    documents.emplace_back(name, render_junit(run.report, run.inventory, run.report.judged, run.extras));
  }
  for (const auto& [name, xml] : documents) {
    SCOPED_TRACE(name);
    const auto path = folder / (name + ".xml");
    write_file_atomically(path, xml);
    const auto result = xmllint(path);
    EXPECT_EQ(result.status, 0) << result.output;
  }
  // The schema is strict enough to fail: what the renderer once wrote is refused.
  std::string old = documents[0].second;
  old.replace(old.find("<testsuites "), 12, "<testsuites skipped=\"2\" ");
  write_file_atomically(folder / "old.xml", old);
  const auto refused = xmllint(folder / "old.xml");
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.output.find("attribute 'skipped': The attribute 'skipped' is not allowed"), std::string::npos)
      << refused.output;
  std::string nameless = documents[0].second;
  const std::string named = "<testcase classname=\"compute\" name=";
  nameless.replace(nameless.find(named), named.size(), "<testcase classname=\"compute\" id=");
  write_file_atomically(folder / "nameless.xml", nameless);
  EXPECT_NE(xmllint(folder / "nameless.xml").status, 0);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace pipecheck
