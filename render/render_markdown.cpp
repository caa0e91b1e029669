// Markdown renderer: tables of escaped cells, so a pipe or a backtick in a device name or a path
// cannot break the table in a ticket.
#include "render/render_markdown.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "render/attention.hpp"
#include "render/conditions_text.hpp"
#include "render/escape.hpp"
#include "render/summary_table.hpp"

namespace pipecheck {

namespace {

std::string md(std::string_view text) { return markdown_escape(text); }

std::string verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::invalid: return "**INVALID**";
    case Verdict::fail: return "**FAIL**";
    case Verdict::inconclusive: return "**INCONCLUSIVE**";
    case Verdict::warn: return "**WARN**";
    default: return to_string(verdict);
  }
}

// The figures of a stress run a ticket needs: peaks, throttling, errors. The HTML has the curves.
void render_telemetry(std::ostringstream& out, const TelemetryLog& log) {
  out << "\n## Stress telemetry\n\n";
  struct Peak {
    std::optional<double> temp, power, min_clock, wrong;
    int throttled = 0;
    int samples = 0;
    std::string xid;
  };
  std::map<std::string, Peak> peaks;
  std::vector<std::string> order;
  for (const auto& s : log.samples) {
    if (s.source != "gpu") continue;
    const std::string name = s.gpu_index ? "GPU " + std::to_string(*s.gpu_index) : "GPU " + s.gpu_bus_id;
    if (!peaks.count(name)) order.push_back(name);
    Peak& p = peaks[name];
    ++p.samples;
    if (s.temp_c && (!p.temp || *s.temp_c > *p.temp)) p.temp = s.temp_c;
    if (s.power_w && (!p.power || *s.power_w > *p.power)) p.power = s.power_w;
    if (s.sm_clock_mhz && (!p.min_clock || *s.sm_clock_mhz < *p.min_clock)) p.min_clock = s.sm_clock_mhz;
    if (s.wrong_results && (!p.wrong || *s.wrong_results > *p.wrong)) p.wrong = s.wrong_results;
    if (is_throttled(s)) ++p.throttled;
    if (!s.xid.empty() && s.xid != "0" && p.xid.find(s.xid) == std::string::npos) {
      p.xid += (p.xid.empty() ? "" : ", ") + s.xid;
    }
  }
  auto figure = [](const std::optional<double>& v, const std::string& unit) {
    return v ? format_figure(*v) + unit : std::string("-");
  };
  if (!order.empty()) {
    out << "| GPU | samples | max temp | max power | min SM clock | throttled samples | Xid | wrong results |\n"
        << "|---|--:|--:|--:|--:|--:|---|--:|\n";
  }
  for (const auto& name : order) {
    const Peak& p = peaks[name];
    out << "| " << md(name) << " | " << p.samples << " | " << figure(p.temp, " C") << " | " << figure(p.power, " W")
        << " | " << figure(p.min_clock, " MHz") << " | " << p.throttled << " | " << (p.xid.empty() ? "-" : md(p.xid))
        << " | " << figure(p.wrong, "") << " |\n";
  }
  // The host CPU: what a CPU burn (stress --cpu) did to it.
  Peak cpu;
  std::optional<double> max_util;
  for (const auto& s : log.samples) {
    if (s.source != "host") continue;
    ++cpu.samples;
    if (s.cpu_util_pct && (!max_util || *s.cpu_util_pct > *max_util)) max_util = s.cpu_util_pct;
    if (s.cpu_temp_c && (!cpu.temp || *s.cpu_temp_c > *cpu.temp)) cpu.temp = s.cpu_temp_c;
    if (s.cpu_package_w && (!cpu.power || *s.cpu_package_w > *cpu.power)) cpu.power = s.cpu_package_w;
    if (s.wrong_results && (!cpu.wrong || *s.wrong_results > *cpu.wrong)) cpu.wrong = s.wrong_results;
  }
  if (cpu.samples > 0) {
    out << (order.empty() ? "" : "\n") << "| Host CPU | samples | max util | max temp | max package power | wrong results |\n"
        << "|---|--:|--:|--:|--:|--:|\n| CPU | " << cpu.samples << " | " << figure(max_util, "%") << " | "
        << figure(cpu.temp, " C") << " | " << figure(cpu.power, " W") << " | " << figure(cpu.wrong, "") << " |\n";
  }
  if (!log.dropped.empty()) out << "\n" << log.dropped.size() << " row(s) of telemetry.csv left out (partial or malformed).\n";
}

// Why each figure's probe stopped repeating it and how long that took (core/stopping_rule):
// a verdict decided, the noise target met, or a cap. Omitted for reports that did not keep it.
void render_repetitions(std::ostringstream& out, const Report& report) {
  std::string rows;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      if (m.stopping.empty()) continue;
      rows += "| " + md(m.what) + " | " + std::to_string(m.repetitions.size()) + " | " + md(m.stopping) + " |\n";
    }
  }
  if (rows.empty()) return;
  out << "\n## Repetitions\n\n| What | Repetitions | Why it stopped |\n|---|--:|---|\n" << rows;
}

}  // namespace

std::string render_markdown(const Report& report, const Inventory& inventory, const Judged& judged,
                            const RenderExtras& extras) {
  std::ostringstream out;
  const bool judged_any = is_judged(judged);
  out << "# pipecheck report: " << md(report.host) << "\n\n";
  out << "**Overall:** " << (judged_any ? verdict_text(judged.overall) : "not judged") << " ("
      << md(counts_text(count_verdicts(judged))) << ") - " << md(report.mode) << " run, "
      << md(report.started_utc) << " to " << md(report.finished_utc) << ", pipecheck "
      << md(report.pipecheck_version) << "\n\n";
  std::map<std::string, int> gpu_names;
  for (const auto& gpu : inventory.gpus) ++gpu_names[gpu.name];
  out << "Machine: " << md(inventory.cpu.model);
  for (const auto& [name, count] : gpu_names) out << "; " << count << " x " << md(name);
  if (gpu_names.empty()) out << "; no GPU seen";
  out << "\n";

  const auto attention = attention_items(report, judged);
  if (!attention.empty()) {
    out << "\n## " << (std::any_of(attention.begin(), attention.end(),
                                     [](const AttentionItem& a) { return is_failure(a.judgement->verdict); })
                            ? "Why this failed"
                            : "Why this is inconclusive")
        << "\n\n";
    for (const auto& item : attention) {
      const Judgement& j = *item.judgement;
      out << "- " << verdict_text(j.verdict) << " " << md(item.title) << ": ";
      if (!item.figure.empty()) out << md(item.figure) << ". ";
      out << md(j.explanation);
      if (!item.threshold.empty()) out << " (rule: " << md(item.threshold) << ")";
      if (!item.finding.empty()) out << ". " << md(item.finding);
      out << "\n  - What to do: " << md(item.what_to_do) << "\n";
    }
  }

  out << "\n## Findings\n\n";
  if (judged.findings.empty()) out << (judged_any ? "No findings.\n" : "Not judged.\n");
  for (const auto& f : judged.findings) {
    out << "- " << verdict_text(f.severity) << " (" << md(stage_title(f.stage)) << "): " << md(f.text);
    if (!f.evidence.empty()) {
      out << " - from ";
      for (std::size_t i = 0; i < f.evidence.size(); ++i) out << (i ? ", " : "") << md(f.evidence[i]);
    }
    out << "\n";
  }

  if (judged.budget) {
    const PipelineBudget& b = *judged.budget;
    out << "\n## Pipeline budget\n\nWorkload: " << md(b.workload) << "\n\n| Stage | samples/s | How |\n|---|--:|---|\n";
    for (const auto& s : b.stages) {
      const bool bounding = s.stage == b.bounding_stage;
      out << "| " << (bounding ? "**" + md(stage_title(s.stage)) + "**" : md(stage_title(s.stage))) << " | "
          << (s.samples_per_second ? format_figure(*s.samples_per_second) : "-") << " | " << md(s.derivation) << " |\n";
    }
    if (!b.explanation.empty()) out << "\n" << md(b.explanation) << "\n";
  }

  const JudgementIndex index(judged);
  for (const auto& stage : stages_in_pipeline_order(report)) {
    const auto measurements = measurements_of(report, stage);
    if (measurements.empty()) continue;
    out << "\n## " << md(stage_title(stage)) << "\n\n"
        << "| What | Measured | Min - max | Ceiling | % | Verdict | Ceiling derivation; verdict |\n"
        << "|---|--:|--:|--:|--:|---|---|\n";
    for (const Measurement* m : measurements) {
      const Judgement* j = index.find(m->key);
      out << "| " << md(m->what) << " | " << md(measured_text(*m)) << " | " << md(range_text(*m)) << " | "
          << md(ceiling_value_text(*m)) << " | " << md(percent_text(*m)) << " | "
          << (j ? verdict_text(j->verdict) : "-") << " | " << md(ceiling_note(*m));
      const std::string explanation = j ? without_repeated_clauses(j->explanation, ceiling_note(*m)) : "";
      if (!explanation.empty()) out << "; " << md(explanation);
      out << " |\n";
    }
  }

  render_repetitions(out, report);

  const auto others = other_judgements(report, judged);
  if (!others.empty()) {
    out << "\n## Other checks\n\n| Check | Verdict | Why |\n|---|---|---|\n";
    for (const Judgement* j : others) {
      out << "| " << md(j->what.empty() ? j->subject : j->what) << " | " << verdict_text(j->verdict) << " | "
          << md(j->explanation) << " |\n";
    }
  }

  std::string problems;
  for (const auto& p : report.probes) {
    if (p.status == ProbeStatus::ok && p.case_errors.empty()) continue;
    std::string reason = p.reason;
    for (const auto& error : p.case_errors) reason += "; case error: " + error;
    problems += "| " + md(p.probe) + " | " + md(p.stage) + " | " + md(to_string(p.status)) + " | " + md(reason) + " |\n";
  }
  if (!problems.empty()) {
    out << "\n## Probes without full results\n\n| Probe | Stage | Status | Reason |\n|---|---|---|---|\n" << problems;
  }

  out << render_conditions_markdown(report);
  if (extras.telemetry) render_telemetry(out, *extras.telemetry);
  if (!extras.burn_rates.empty()) {
    out << "\nBurn rates against their ceilings:\n\n";
    for (const auto& line : extras.burn_rates) out << "- " << md(line) << "\n";
  }

  if (!extras.baseline_comparison.empty()) {
    // An indented code block: no fence for the text to close early.
    out << "\n## Against the baseline\n\n";
    std::istringstream lines(extras.baseline_comparison);
    std::string line;
    while (std::getline(lines, line)) out << "    " << line << "\n";
  }
  return out.str();
}

}  // namespace pipecheck
