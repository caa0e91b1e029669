// report.html from the recorded GPU run: self-contained (no script, nothing from the network),
// every section the issue asks for, the charts drawn from the right measurements.
#include "reports/render/render_html.hpp"

#include <gtest/gtest.h>

#include "reports/render/svg_chart.hpp"
#include "tests/render_test_data.hpp"

namespace pipecheck {
namespace {

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string h200_html() {
  const auto run = testing::load_recorded_run("h200");
  return render_html(run.report, run.inventory, run.report.judged, run.extras);
}

TEST(RenderHtml, SelfContainedWithoutScriptsOrNetwork) {
  const std::string html = h200_html();
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(count_of(html, "<svg"), count_of(html, "</svg>"));
}

TEST(RenderHtml, HasEverySection) {
  const std::string html = h200_html();
  for (const char* id : {"findings", "budget", "stages", "curves", "telemetry", "checks", "probes", "inventory"}) {
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  }
  EXPECT_NE(html.find("<div class=\"badge v-fail\">FAIL</div>"), std::string::npos);
  // The failed/skipped probes are listed with their reasons.
  EXPECT_NE(html.find("not built: nvJPEG not found at configure time"), std::string::npos);
}

TEST(RenderHtml, ChartsShowPercentAndDerivation) {
  const std::string html = h200_html();
  // Visible note beside the bar, derivation in its tooltip and in the table.
  EXPECT_NE(html.find(">761 TFLOP/s, 76.9% of 989 TFLOP/s</text>"), std::string::npos);
  EXPECT_GE(count_of(html, "989.4 TFLOP/s"), 2);
  EXPECT_NE(html.find("scaling with threads (images/s)"), std::string::npos);
  EXPECT_NE(html.find("by transfer size (GB/s)"), std::string::npos);
  EXPECT_NE(html.find(">4 KiB</text>"), std::string::npos);  // the size axis in bytes
}

TEST(RenderHtml, TelemetryShadesTheThrottlePeriod) {
  const std::string html = h200_html();
  EXPECT_NE(html.find("GPU temperature"), std::string::npos);
  EXPECT_NE(html.find("SM clock (MHz)"), std::string::npos);
  // GPU 5's thermal slowdown from 150 s to 195 s is one merged band (on each telemetry chart).
  EXPECT_NE(html.find("<title>thermal/HW slowdown (any GPU): 150 s - 195 s</title>"), std::string::npos);
  EXPECT_NE(html.find("1 row(s) of telemetry.csv left out"), std::string::npos);
}

TEST(RenderHtml, NoTelemetrySectionWithoutCsv) {
  auto run = testing::load_recorded_run("h200");
  run.extras.telemetry.reset();
  const std::string html = render_html(run.report, run.inventory, run.report.judged, run.extras);
  EXPECT_EQ(html.find("<section id=\"telemetry\">"), std::string::npos);
}

TEST(RenderSvgChart, BytesLabelsAndEmptyChartsStayWellFormed) {
  EXPECT_EQ(bytes_label(4096), "4 KiB");
  EXPECT_EQ(bytes_label(268435456), "256 MiB");
  EXPECT_EQ(bytes_label(1536), "1.5 KiB");
  const std::string empty = render_line_chart(LineChart{});
  EXPECT_EQ(empty.find("nan"), std::string::npos);
  EXPECT_EQ(empty.find("inf"), std::string::npos);
  BarChart bars;
  bars.bars.push_back({"zero", 0, std::nullopt, "0", "", "info"});
  const std::string svg = render_bar_chart(bars);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_NE(svg.find("width=\"0.0\""), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
