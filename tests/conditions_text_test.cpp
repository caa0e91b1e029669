// The conditions piece of the terminal summary, Markdown and HTML: one line or row a probe,
// the quiet check before the run, every machine string escaped, nothing for older reports.
#include "render/conditions_text.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Report busy_report() {
  Report report;
  ProbeOutcome probe{"pipecheck-decode", "decode", ProbeStatus::ok, "", 30, {}, {}};
  RunConditions c;
  c.seconds = 30;
  c.other_cpu_percent = 187.4;
  c.steal_percent = 0.2;
  c.iowait_percent = 0.1;
  c.loadavg_1m = 3.43;
  c.usable_cpus = 2;
  c.cpu_allowance = "2 of 2 CPUs";
  c.governor = "unknown: no cpufreq governor in sysfs (a virtual machine, or a kernel without cpufreq)";
  c.clocks_note = "unknown: no cpufreq scaling_cur_freq in sysfs";
  c.top_consumers = {{812, "stress|<ng>", 98}};
  c.gpu_processes = {{4411, "python3", "0000:17:00.0", 0}};
  c.gpu_clock_events = {"0000:17:00.0: SwThermalSlowdown"};
  probe.conditions = c;
  report.probes.push_back(probe);
  report.probes.push_back({"pipecheck-compute", "compute", ProbeStatus::skipped, "skipped", 0, {}, {}});
  QuietCheck quiet;
  quiet.conditions = c;
  quiet.quiet = false;
  quiet.waited_seconds = 12;
  report.quiet_check = quiet;
  return report;
}

TEST(ConditionsText, SummaryHasALineAProbeAndTheCheckBefore) {
  const std::string text = render_conditions_summary(busy_report());
  EXPECT_TRUE(contains(text, "\nConditions (others = CPU other processes used, % of one core):\n")) << text;
  EXPECT_TRUE(contains(text, "  before    busy: others 187% of a core")) << text;
  EXPECT_TRUE(contains(text, "  decode    others 187% of a core (stress|<ng> (pid 812) 98%)")) << text;
  EXPECT_TRUE(contains(text, "load 3.4")) << text;
  EXPECT_TRUE(contains(text, "governor unknown,")) << text;
  EXPECT_TRUE(contains(text, "python3 (pid 4411) on 0000:17:00.0")) << text;
  std::string flat;  // the wrapped lines as one, to find words a line break fell between
  for (char ch : text) {
    if (ch == '\n' || (ch == ' ' && !flat.empty() && flat.back() == ' ')) continue;
    flat += ch;
  }
  EXPECT_TRUE(contains(flat, "waited 12 s")) << text;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    EXPECT_LE((end == std::string::npos ? text.size() : end) - start, 100u) << text.substr(start, end - start);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  EXPECT_FALSE(contains(text, "compute")) << "a probe without conditions has no line";
}

TEST(ConditionsText, MarkdownAndHtmlEscapeMachineStrings) {
  const std::string md = render_conditions_markdown(busy_report());
  EXPECT_TRUE(contains(md, "## Conditions")) << md;
  EXPECT_TRUE(contains(md, "| decode | 187% |")) << md;
  EXPECT_FALSE(contains(md, "stress|<ng>")) << "a | would split the table row: " << md;
  const std::string html = render_conditions_html(busy_report());
  EXPECT_TRUE(contains(html, "<section id=\"conditions\">")) << html;
  EXPECT_TRUE(contains(html, "stress|&lt;ng&gt;")) << html;
  EXPECT_FALSE(contains(html, "<ng>")) << html;
}

TEST(ConditionsText, OlderReportsRenderNothing) {
  Report old;
  old.probes.push_back({"pipecheck-decode", "decode", ProbeStatus::ok, "", 30, {}, {}});
  EXPECT_EQ(render_conditions_summary(old), "");
  EXPECT_EQ(render_conditions_markdown(old), "");
  EXPECT_EQ(render_conditions_html(old), "");
}

}  // namespace
}  // namespace pipecheck
