// Hostile strings from the machine or the user (a file name with a script tag, quotes, pipes,
// newlines, backticks) reach every renderer escaped: no raw tag, no broken table or label.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "render/escape.hpp"
#include "render/render_html.hpp"
#include "render/render_junit.hpp"
#include "render/render_markdown.hpp"
#include "render/render_prometheus.hpp"
#include "render/summary_table.hpp"

namespace pipecheck {
namespace {

const std::string kScript = "<script>alert(1)</script>";
const std::string kFile = "/data/imgs/" + kScript + ".jpg";
const std::string kQuote = "x\" onmouseover=\"alert(2)";

// A report, inventory and verdicts with the hostile strings wherever text comes from outside.
struct Hostile {
  Report report;
  Inventory inventory;
  Judged judged;
  RenderExtras extras;
};

Hostile hostile() {
  Hostile h;
  h.report.host = "host" + kScript;
  h.report.mode = "quick";
  h.report.started_utc = "2026-11-30T08:00:00Z";
  h.report.finished_utc = "2026-11-30T08:01:00Z";
  ProbeOutcome storage;
  storage.probe = "pipecheck-storage";
  storage.stage = "storage";
  storage.status = ProbeStatus::ok;
  Measurement m;
  m.key = "storage/seq_read/" + kFile;
  m.stage = "storage";
  m.what = "reads of " + kFile + " | `x` " + kQuote;
  m.unit = "GB/s";
  m.stats = {1.5, 1.4, 1.6, 3};
  m.params = {{"device", "nvme0n1" + kScript}, {"pattern", "seq_read"}, {"path", kFile}, {"bytes", "4096"}};
  m.ceiling = CeilingResult::known({2.0, "GB/s", "link" + kScript, "derivation " + kScript + " " + kQuote});
  m.percent_of_ceiling = 75;
  storage.measurements.push_back(m);
  m.key += "/2";
  m.params["bytes"] = "8192";  // a second size, so the size-sweep curve (series names) is drawn
  storage.measurements.push_back(m);
  h.report.probes.push_back(storage);
  ProbeOutcome failed;
  failed.probe = "pipecheck-compute";
  failed.stage = "compute";
  failed.status = ProbeStatus::failed;
  failed.reason = "crashed reading " + kFile;
  failed.case_errors = {"case " + kScript};
  h.report.probes.push_back(failed);

  h.inventory.hostname = h.report.host;
  h.inventory.cpu.model = "CPU " + kScript;
  GpuInfo gpu;
  gpu.cuda_index = 0;
  gpu.name = "NVIDIA " + kScript;
  gpu.pci_bdf = "0000:17:00.0" + kScript;
  h.inventory.gpus.push_back(gpu);
  BlockDevice disk;
  disk.name = "nvme0n1" + kScript;
  disk.model = "model " + kQuote;
  h.inventory.disks.push_back(disk);
  h.inventory.notes.push_back("note " + kScript);
  h.inventory.software.kernel = "6.1" + kScript;

  h.judged.judgements.push_back({m.key, "storage", m.what, Verdict::fail, "rule " + kScript, "why " + kScript + kQuote});
  h.judged.judgements.push_back({"inventory/" + kScript, "inventory", kScript, Verdict::warn, kScript, kScript});
  h.judged.findings.push_back({Verdict::warn, "storage", "finding about " + kFile + " | " + kQuote, {m.key}});
  h.judged.budget = PipelineBudget{"workload " + kScript, {{"storage", 100.0, "derivation " + kScript}}, "storage", kScript};
  h.judged.overall = Verdict::fail;

  TelemetryLog log;
  TelemetrySample sample;
  sample.source = "gpu";
  sample.gpu_bus_id = "bus" + kScript;
  sample.temp_c = 50;
  sample.throttle_reasons = {kScript};
  sample.xid = kScript;
  log.samples.push_back(sample);
  sample.elapsed_s = 1;
  log.samples.push_back(sample);
  log.dropped.push_back("line 9: " + kScript);
  h.extras.telemetry = log;
  h.extras.baseline_comparison = "baseline " + kScript;
  return h;
}

TEST(Escape, HtmlEscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_escape("a&b<c>d\"e'f"), "a&amp;b&lt;c&gt;d&quot;e&#39;f");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST(Escape, XmlWritesForbiddenControlCharactersAsEscapes) {
  EXPECT_EQ(xml_escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  EXPECT_EQ(xml_escape(std::string("a\x01") + "b\tc\n"), "a\\x01b\tc\n");
}

TEST(Escape, NamesWithAnyBytesAreVisibleInEveryFormat) {
  const std::string name = "caf\xe9\x1b\xff";
  EXPECT_EQ(html_escape(name), "caf\\xe9\\x1b\\xff");
  EXPECT_EQ(xml_escape(name), "caf\\xe9\\x1b\\xff");
  // Formats where a backslash is itself escaped show the same text once rendered.
  EXPECT_EQ(markdown_escape(name), "caf\\\\xe9\\\\x1b\\\\xff");
  EXPECT_EQ(prometheus_label_escape(name), "caf\\\\xe9\\\\x1b\\\\xff");
}

TEST(Escape, MarkdownCellCannotBreakTheTable) {
  EXPECT_EQ(markdown_escape("a|b`c\\d\ne"), "a\\|b\\`c\\\\d e");
  EXPECT_EQ(markdown_escape("<b>*x*_[l]"), "&lt;b&gt;\\*x\\*\\_\\[l\\]");
}

TEST(Escape, PrometheusLabelValue) {
  EXPECT_EQ(prometheus_label_escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(prometheus_help_escape("a\\b\nc\"d"), "a\\\\b\\nc\"d");
}

TEST(RenderHtml, HostileStringsAppearEscapedAndNoRawScript) {
  const Hostile h = hostile();
  const std::string html = render_html(h.report, h.inventory, h.judged, h.extras);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<SCRIPT"), std::string::npos);
  EXPECT_EQ(html.find("\" onmouseover"), std::string::npos);
  const std::string escaped = "&lt;script&gt;alert(1)&lt;/script&gt;";
  EXPECT_NE(html.find("NVIDIA " + escaped), std::string::npos) << "GPU name";
  EXPECT_NE(html.find("reads of /data/imgs/" + escaped + ".jpg"), std::string::npos) << "measurement what";
  EXPECT_NE(html.find("storage/seq_read//data/imgs/" + escaped), std::string::npos) << "measurement key";
  EXPECT_NE(html.find("nvme0n1" + escaped), std::string::npos) << "device param (curve series name)";
  EXPECT_NE(html.find("x&quot; onmouseover=&quot;alert(2)"), std::string::npos);
}

TEST(RenderMarkdown, HostileStringsCannotBreakATable) {
  const Hostile h = hostile();
  const std::string md = render_markdown(h.report, h.inventory, h.judged, h.extras);
  // Raw text only inside the indented code block of the baseline comparison (shown literally).
  for (auto at = md.find("<script"); at != std::string::npos; at = md.find("<script", at + 1)) {
    const auto line_start = md.rfind('\n', at) + 1;
    EXPECT_EQ(md.compare(line_start, 4, "    "), 0) << "raw tag outside a code block at " << at;
  }
  EXPECT_NE(md.find("reads of /data/imgs/&lt;script&gt;alert(1)&lt;/script&gt;.jpg \\| \\`x\\`"), std::string::npos);
  // Every table row keeps its column count: unescaped pipes would add cells.
  std::istringstream lines(md);
  std::string line;
  std::size_t columns = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '|') {
      columns = 0;
      continue;
    }
    std::size_t pipes = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++pipes;
    }
    if (columns == 0) columns = pipes;
    EXPECT_EQ(pipes, columns) << line;
  }
}

TEST(RenderPrometheus, HostileLabelValuesAreEscaped) {
  Hostile h = hostile();
  h.report.probes[0].measurements[0].params["device"] = "k\"ey\\with\nnewline";
  const std::string prom = render_prometheus(h.report, h.inventory, h.judged, h.extras);
  EXPECT_NE(prom.find("device=\"k\\\"ey\\\\with\\nnewline\""), std::string::npos) << prom;
  // No sample line is split by a raw newline: each line is a comment or name{...} value.
  std::istringstream lines(prom);
  std::string line;
  while (std::getline(lines, line)) {
    EXPECT_TRUE(line.rfind("# ", 0) == 0 || line.rfind("pipecheck_", 0) == 0) << line;
  }
}

TEST(RenderJunit, HostileStringsAreXmlEscaped) {
  const Hostile h = hostile();
  const std::string xml = render_junit(h.report, h.inventory, h.judged, h.extras);
  EXPECT_EQ(xml.find("<script"), std::string::npos);
  EXPECT_EQ(xml.find("\" onmouseover"), std::string::npos);
  EXPECT_NE(xml.find("why &lt;script&gt;alert(1)&lt;/script&gt;x&quot; onmouseover=&quot;alert(2)"), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
