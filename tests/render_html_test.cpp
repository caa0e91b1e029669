// report.html from the recorded GPU run: self-contained (no script, nothing from the network),
// every section the issue asks for, the charts drawn from the right measurements.
#include "render/render_html.hpp"

#include <gtest/gtest.h>

#include "render/svg_chart.hpp"
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

TEST(RenderSvgChart, EmptyChartsStayWellFormed) {
  const std::string empty = render_line_chart(LineChart{});
  EXPECT_EQ(empty.find("nan"), std::string::npos);
  EXPECT_EQ(empty.find("inf"), std::string::npos);
  BarChart bars;
  bars.bars.push_back({"zero", 0, std::nullopt, "0", "", "info"});
  const std::string svg = render_bar_chart(bars);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_NE(svg.find("width=\"0.0\""), std::string::npos);
}

// "Why this failed" comes right after the header, before the findings, with every failing
// verdict's figure, threshold and what to do.
TEST(RenderHtml, WhyThisFailedOpensThePage) {
  const std::string html = h200_html();
  const auto attention = html.find("<section id=\"attention\" class=\"attention v-fail\"><h2>Why this failed</h2>");
  ASSERT_NE(attention, std::string::npos);
  EXPECT_LT(attention, html.find("<section id=\"findings\">"));
  EXPECT_LT(html.find("</header>"), attention);
  const std::string section = html.substr(attention, html.find("</section>", attention) - attention);
  EXPECT_EQ(count_of(section, "<li class=\"v-fail\">"), 3) << section;  // the three fail verdicts
  EXPECT_NE(section.find("<b>GPU compute (GEMM): BF16 GEMM, GPU 5</b>"), std::string::npos) << section;
  EXPECT_NE(section.find("<dt>measured</dt><dd>655 TFLOP/s"), std::string::npos);
  EXPECT_NE(section.find("<code>compute.bf16_min_percent = 70</code>"), std::string::npos);
  EXPECT_NE(section.find("<dt>what to do</dt><dd>Check the GPU&#39;s SM clock"), std::string::npos);
  EXPECT_NE(section.find("GPU 3 PCIe link"), std::string::npos);
  EXPECT_NE(html.find("<nav><a href=\"#attention\">Why this failed</a>"), std::string::npos);
}

TEST(RenderHtml, NoAttentionSectionWhenNothingFailed) {
  const auto run = testing::load_recorded_run("host");
  const std::string html = render_html(run.report, run.inventory, run.report.judged, run.extras);
  EXPECT_EQ(html.find("id=\"attention\""), std::string::npos);
}

// Invalid and inconclusive are rendered with their own colours and headed by what they mean.
TEST(RenderHtml, InvalidAndInconclusiveVerdictsAreShown) {
  auto run = testing::load_recorded_run("host");
  auto& judgements = run.report.judged.judgements;
  for (auto& j : judgements) {
    if (j.subject == "hostmem/read/threads:2") j.verdict = Verdict::inconclusive;
  }
  run.report.judged.overall = Verdict::inconclusive;
  std::string html = render_html(run.report, run.inventory, run.report.judged, run.extras);
  EXPECT_NE(html.find("<h2>Why this is inconclusive</h2>"), std::string::npos);
  EXPECT_NE(html.find("<li class=\"v-inconclusive\"><span class=\"chip v-inconclusive\">inconclusive</span>"),
            std::string::npos);
  EXPECT_NE(html.find("rerun on a quiet machine"), std::string::npos);
  EXPECT_NE(html.find("svg .tone-inconclusive {"), std::string::npos);
  for (auto& j : judgements) {
    if (j.subject == "hostmem/write/threads:2") j.verdict = Verdict::invalid;
  }
  run.report.judged.overall = Verdict::invalid;
  html = render_html(run.report, run.inventory, run.report.judged, run.extras);
  const auto invalid = html.find("<li class=\"v-invalid\">");
  ASSERT_NE(invalid, std::string::npos);
  EXPECT_LT(invalid, html.find("<li class=\"v-inconclusive\">"));  // worst first
  EXPECT_NE(html.find("<h2>Why this failed</h2>"), std::string::npos);
  EXPECT_NE(html.find("above its physical ceiling is a measurement error"), std::string::npos);
}

// A derivation cell says each sentence once.
TEST(RenderHtml, DerivationCellsDoNotRepeatThemselves) {
  const auto run = testing::load_recorded_run("host");
  const std::string html = render_html(run.report, run.inventory, run.report.judged, run.extras);
  EXPECT_EQ(count_of(html, "memory channel count not reported by the platform<br>no ceiling to hold 2.37 GB/s against"
                           " <code>"), 1) << html;
  const std::string h200 = h200_html();
  EXPECT_NE(h200.find("the 1-thread rate is the per-core reference<br>412 images/s</td>"), std::string::npos);
  EXPECT_EQ(h200.find("(current link) (link)"), std::string::npos);
}

// Curves are named as their measurements are named everywhere else, not by params.
TEST(RenderHtml, CurveLegendsUseDisplayNames) {
  const std::string html = h200_html();
  const auto curves = html.substr(html.find("<section id=\"curves\">"));
  EXPECT_NE(curves.find(">full decode, baseline</text>"), std::string::npos) << curves.substr(0, 4000);
  EXPECT_NE(curves.find(">full decode, progressive</text>"), std::string::npos);
  EXPECT_NE(curves.find(">H2D pinned, GPU 0</text>"), std::string::npos);
  EXPECT_EQ(curves.find(">full, baseline<"), std::string::npos);
  EXPECT_EQ(curves.find("h2d, pinned"), std::string::npos);
}

// A CPU-only burn (stress --cpu): a CPU summary, and no GPU table with nothing in it.
TEST(RenderHtml, CpuOnlyStressShowsTheCpuAndNoGpuTable) {
  auto run = testing::load_recorded_run("host");
  run.extras.telemetry = parse_telemetry_log(
      "utc_time,elapsed_s,source,gpu_index,gpu_bus_id,temp_c,mem_temp_c,power_w,power_limit_w,sm_clock_mhz,"
      "mem_clock_mhz,util_gpu_pct,util_mem_pct,throttle_reasons,ecc_corrected,ecc_uncorrected,pcie_replays,xid,"
      "cpu_util_pct,cpu_temp_c,cpu_package_w,tflops,wrong_results\n"
      "2026-11-28T14:08:00.000Z,0.000,host,,,,,,,,,,,,,,,,97.5,71,88.5,0.051,0\n"
      "2026-11-28T14:08:01.000Z,1.000,host,,,,,,,,,,,,,,,,99.0,74,90.1,0.049,0\n"
      "2026-11-28T14:08:02.000Z,2.000,host,,,,,,,,,,,,,,,,98.0,76,91.0,0.050,0\n");
  const std::string html = render_html(run.report, run.inventory, run.report.judged, run.extras);
  const std::string section = html.substr(html.find("<section id=\"telemetry\">"));
  EXPECT_EQ(section.find("<th>GPU</th>"), std::string::npos) << "an empty GPU table";
  EXPECT_NE(section.find("<h3>Host CPU</h3>"), std::string::npos);
  EXPECT_NE(section.find("<td class=\"num\">3</td><td class=\"num\">98% / 99%</td><td class=\"num\">76 \xC2\xB0" "C</td>"
                         "<td class=\"num\">91 W</td><td class=\"num\">50.0</td><td class=\"num\">0</td>"),
            std::string::npos) << section.substr(0, 3000);
  EXPECT_NE(section.find("CPU burn throughput"), std::string::npos);
}

// Bar labels wrap inside their room instead of being cut by a character count.
TEST(RenderSvgChart, LongBarLabelsWrapAndKeepEveryWord) {
  BarChart chart;
  chart.title = "GB/s";
  chart.bars.push_back({"pread 128 KiB 1 thread (num_workers=0), cold cache, dataset on nvme0n1", 1.2, 2.0,
                        "1.20 GB/s, 60.0% of 2.00 GB/s", "", "pass"});
  chart.bars.push_back({"short", 1.0, std::nullopt, "1.00 GB/s, no ceiling", "", "info"});
  const std::string svg = render_bar_chart(chart);
  EXPECT_NE(svg.find("<tspan x=\"262.0\">pread 128 KiB 1 thread</tspan>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">(num_workers=0), cold cache, dataset</tspan>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">on nvme0n1</tspan>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("viewBox=\"0 0 960 118.0\""), std::string::npos) << "the row grew to hold three lines";
  EXPECT_EQ(svg.find("\xE2\x80\xA6"), std::string::npos) << "an ellipsis: something was cut";
}

}  // namespace
}  // namespace pipecheck
