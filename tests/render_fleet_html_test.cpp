// The fleet page from the recorded fleet (tests/data/compare/fleet): one row a host, one column a
// stage, outliers marked in their cells; record text escaped.
#include "render/render_fleet_html.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace pipecheck {
namespace {

const std::string kFleet = std::string(PIPECHECK_TEST_DATA) + "/compare/fleet";

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

TEST(RenderFleetHtml, HostsByStagesWithOutliersMarked) {
  std::vector<std::string> notes;
  const FleetResult result = analyze_fleet(load_fleet({kFleet}, false, notes));
  const std::string page = render_fleet_html(result);
  std::set<std::string> stages;
  for (const auto& group : result.groups) stages.insert(fleet_stage_of(group));
  const std::string matrix = page.substr(page.find("<table class=\"fleet\">"), page.find("</table>") - page.find("<table class=\"fleet\">"));
  EXPECT_EQ(count(matrix, "<tr class=\"outlier-host\""), 2) << "node-c and node-d";
  EXPECT_EQ(count(matrix, "data-host="), static_cast<int>(result.runs.size()));
  EXPECT_EQ(count(matrix, "<td class=\"cell"), static_cast<int>(result.runs.size() * stages.size()));
  EXPECT_GE(count(matrix, "cell outlier"), 2);
  EXPECT_NE(page.find("<h2>Outlier GPUs</h2>"), std::string::npos);
  EXPECT_NE(page.find("0000:2a:00.0"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
}

TEST(RenderFleetHtml, RecordTextIsEscaped) {
  FleetResult result;
  result.runs.push_back({"<script>alert(1)</script>", "a&b", "2026"});
  FleetGroup group;
  group.group = "hostmem/<x>";
  group.what = "memcpy \"1\"";
  group.samples.push_back({"<script>alert(1)</script>", "", "", "hostmem/<x>", {}, 0, false});
  result.groups.push_back(group);
  result.notes.push_back("<b>note</b>");
  const std::string page = render_fleet_html(result);
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_EQ(page.find("<b>note"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
