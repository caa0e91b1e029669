// Renders the conditions around each probe (see conditions_text.hpp).
#include "render/conditions_text.hpp"

#include <cstdio>
#include <sstream>

#include "render/escape.hpp"

namespace pipecheck {

namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", value < 10 ? 1 : 0, value);
  return text;
}

std::string clocks_text(const RunConditions& c) {
  if (!c.clock_mhz_min || !c.clock_mhz_max) return c.clocks_note.empty() ? "unknown" : c.clocks_note;
  if (*c.clock_mhz_min == *c.clock_mhz_max) return number(*c.clock_mhz_min) + " MHz";
  return number(*c.clock_mhz_min) + "-" + number(*c.clock_mhz_max) + " MHz";
}

std::string gpu_text(const RunConditions& c) {
  std::string text;
  for (const auto& p : c.gpu_processes) {
    text += (text.empty() ? "" : ", ") + (p.command.empty() ? std::string("pid ") : p.command + " (pid ") +
            std::to_string(p.pid) + (p.command.empty() ? "" : ")") + " on " + p.gpu;
  }
  for (const auto& e : c.gpu_clock_events) text += (text.empty() ? "clock events " : "; clock events ") + e;
  return text;
}

bool any_conditions(const Report& report) {
  if (report.quiet_check) return true;
  for (const auto& p : report.probes) {
    if (p.conditions) return true;
  }
  return false;
}

std::string quiet_words(const QuietCheck& q) {
  std::string text = q.quiet ? "quiet" : "busy";
  text += ": " + conditions_words(q.conditions);
  if (q.waited_seconds > 0) text += "; waited " + number(q.waited_seconds) + " s";
  return text;
}

// Words of `text` on lines of at most 100 columns, continuation lines indented by `indent`.
std::string wrap(const std::string& text, const std::string& first, std::size_t indent) {
  std::istringstream words(text);
  std::string word, out, line = first;
  bool has_word = false;
  while (words >> word) {
    if (has_word && line.size() + 1 + word.size() > 100) {
      out += line + "\n";
      line = std::string(indent, ' ');
      has_word = false;
    }
    if (has_word) line += ' ';
    line += word;
    has_word = true;
  }
  return out + line + "\n";
}

}  // namespace

std::string conditions_words(const RunConditions& c) {
  std::string text = "others " + number(c.other_cpu_percent) + "% of a core";
  if (!c.top_consumers.empty()) text += " (" + describe_consumers(c.top_consumers) + ")";
  text += ", steal " + number(c.steal_percent) + "%, iowait " + number(c.iowait_percent) + "%";
  if (c.loadavg_1m) text += ", load " + number(*c.loadavg_1m);
  if (!c.cpu_allowance.empty()) text += ", " + c.cpu_allowance;
  // The whole "unknown: ..." reasons are in report.json; a line a probe says it in one word.
  text += ", governor " + (c.governor.rfind("unknown", 0) == 0 ? std::string("unknown") : c.governor);
  if (c.clock_mhz_min) text += ", clocks " + clocks_text(c);
  const std::string gpus = gpu_text(c);
  if (!gpus.empty()) text += ", GPU: " + gpus;
  return text;
}

std::string render_conditions_summary(const Report& report) {
  if (!any_conditions(report)) return "";
  std::string out = "\nConditions (others = CPU other processes used, % of one core):\n";
  if (report.quiet_check) out += wrap(quiet_words(*report.quiet_check), "  before    ", 12);
  for (const auto& p : report.probes) {
    if (!p.conditions) continue;
    std::string stage = p.stage;
    stage.resize(std::max<std::size_t>(stage.size() + 1, 10), ' ');
    out += wrap(conditions_words(*p.conditions), "  " + stage, 12);
  }
  return out;
}

std::string render_conditions_markdown(const Report& report) {
  if (!any_conditions(report)) return "";
  const auto md = [](const std::string& text) { return markdown_escape(text); };
  std::string out =
      "\n## Conditions\n\nWhat else the machine did while each probe ran (other processes' CPU in % of one core).\n\n"
      "| Probe | Other CPU | Busiest others | Steal | iowait | Load 1m | CPUs | Governor | Clocks | GPU |\n"
      "|---|--:|---|--:|--:|--:|---|---|---|---|\n";
  const auto row = [&](const std::string& name, const RunConditions& c) {
    out += "| " + md(name) + " | " + number(c.other_cpu_percent) + "% | " + md(describe_consumers(c.top_consumers)) +
           " | " + number(c.steal_percent) + "% | " + number(c.iowait_percent) + "% | " +
           (c.loadavg_1m ? number(*c.loadavg_1m) : "-") + " | " + md(c.cpu_allowance) + " | " + md(c.governor) + " | " +
           md(clocks_text(c)) + " | " + md(gpu_text(c)) + " |\n";
  };
  if (report.quiet_check) row(std::string("before the run (") + (report.quiet_check->quiet ? "quiet" : "busy") + ")", report.quiet_check->conditions);
  for (const auto& p : report.probes) {
    if (p.conditions) row(p.stage, *p.conditions);
  }
  return out;
}

std::string render_conditions_html(const Report& report) {
  if (!any_conditions(report)) return "";
  const auto h = [](const std::string& text) { return html_escape(text); };
  std::string out =
      "<section id=\"conditions\"><h2>Conditions</h2>\n<p class=\"small\">What else the machine did while each probe "
      "ran; other processes' CPU in % of one core.</p>\n<table><tr><th>probe</th><th>other CPU</th><th>busiest others"
      "</th><th>steal</th><th>iowait</th><th>load 1m</th><th>CPUs</th><th>governor</th><th>clocks</th><th>GPU</th></tr>\n";
  const auto row = [&](const std::string& name, const RunConditions& c) {
    out += "<tr><td>" + h(name) + "</td><td>" + number(c.other_cpu_percent) + "%</td><td>" +
           h(describe_consumers(c.top_consumers)) + "</td><td>" + number(c.steal_percent) + "%</td><td>" +
           number(c.iowait_percent) + "%</td><td>" + (c.loadavg_1m ? number(*c.loadavg_1m) : "-") + "</td><td>" +
           h(c.cpu_allowance) + "</td><td>" + h(c.governor) + "</td><td>" + h(clocks_text(c)) + "</td><td>" +
           h(gpu_text(c)) + "</td></tr>\n";
  };
  if (report.quiet_check) row(std::string("before the run (") + (report.quiet_check->quiet ? "quiet" : "busy") + ")", report.quiet_check->conditions);
  for (const auto& p : report.probes) {
    if (p.conditions) row(p.stage, *p.conditions);
  }
  return out + "</table></section>\n";
}

}  // namespace pipecheck
