// HTML renderer. The page is built from the same records as every other renderer; each string
// from the records goes through html_escape (the `h` helper) on its way out, charts included.
#include "render/render_html.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "core/probe_reason.hpp"
#include "render/attention.hpp"
#include "render/conditions_text.hpp"
#include "render/escape.hpp"
#include "render/html_parts.hpp"
#include "render/summary_table.hpp"
#include "render/svg_chart.hpp"

namespace pipecheck {

namespace {

using html::chip;
using html::fmt;
using html::h;
using html::verdict_class;

const char* kPageStyle = R"(
:root { --pass:#1f8f4e; --warn:#c98a00; --fail:#cc3333; --info:#4a6fc4; --skipped:#8a8f98; --unsure:#8a5cc4;
  --ink:#1d2330; --muted:#5d6576; --line:#dde1e8; --bg:#f4f6f9; --card:#fff; }
* { box-sizing:border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif; }
main { max-width:1120px; margin:0 auto; padding:20px 24px 48px; }
header.top { display:flex; gap:20px; align-items:center; background:var(--card); border-radius:10px;
  padding:18px 22px; border-left:10px solid var(--info); box-shadow:0 1px 3px rgba(0,0,0,.08); }
header.top.v-pass { border-left-color:var(--pass); } header.top.v-warn { border-left-color:var(--warn); }
header.top.v-fail, header.top.v-invalid { border-left-color:var(--fail); }
header.top.v-skipped { border-left-color:var(--skipped); } header.top.v-inconclusive { border-left-color:var(--unsure); }
.badge { font-weight:700; font-size:26px; letter-spacing:.04em; color:#fff; border-radius:8px;
  padding:10px 18px; background:var(--info); min-width:110px; text-align:center; }
h1 { font-size:22px; margin:0 0 4px; } h2 { font-size:19px; margin:0 0 12px; }
h3 { font-size:16px; margin:22px 0 8px; }
.meta { color:var(--muted); margin:0; }
nav { margin:14px 0 4px; font-size:14px; } nav a { margin-right:14px; color:var(--info); text-decoration:none; }
section { background:var(--card); border-radius:10px; padding:18px 22px; margin-top:18px;
  box-shadow:0 1px 3px rgba(0,0,0,.08); }
.chip { display:inline-block; font-size:12px; font-weight:600; color:#fff; border-radius:10px;
  padding:1px 8px; background:var(--info); white-space:nowrap; }
.v-pass.chip, .v-pass.badge { background:var(--pass); } .v-warn.chip, .v-warn.badge { background:var(--warn); }
.v-fail.chip, .v-fail.badge { background:var(--fail); } .v-info.chip, .v-info.badge { background:var(--info); }
.v-skipped.chip, .v-skipped.badge { background:var(--skipped); }
.v-invalid.chip, .v-invalid.badge { background:var(--fail); } .v-inconclusive.chip, .v-inconclusive.badge { background:var(--unsure); }
.v-none.chip { background:#c4c8cf; }
ul.findings { list-style:none; padding:0; margin:0; }
ul.findings li { padding:10px 12px; border-left:4px solid var(--info); background:#f8f9fb; margin-bottom:8px; border-radius:4px; }
ul.findings li.v-fail, ul.findings li.v-invalid { border-left-color:var(--fail); background:#fdf3f3; }
ul.findings li.v-inconclusive { border-left-color:var(--unsure); }
ul.findings li.v-warn { border-left-color:var(--warn); background:#fdf8ec; }
ul.findings li.v-pass { border-left-color:var(--pass); }
section.attention { border-left:10px solid var(--fail); } section.attention.v-inconclusive { border-left-color:var(--unsure); }
ol.attention { padding-left:22px; margin:0; } ol.attention li { margin-bottom:14px; }
ol.attention dl.facts { margin:6px 0 2px; }
.evidence { color:var(--muted); font-size:13px; margin-top:3px; }
table { border-collapse:collapse; width:100%; font-size:13.5px; margin:6px 0 4px; }
td.what { min-width:190px; }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-weight:600; color:var(--muted); font-size:12.5px; background:#f8f9fb; }
th.num { text-align:right; }
td.num { text-align:right; white-space:nowrap; font-variant-numeric:tabular-nums; }
td.why, .small { color:var(--muted); font-size:12.5px; }
tr.v-fail td:first-child, tr.v-invalid td:first-child { box-shadow:inset 3px 0 var(--fail); }
tr.v-inconclusive td:first-child { box-shadow:inset 3px 0 var(--unsure); }
tr.v-warn td:first-child { box-shadow:inset 3px 0 var(--warn); }
code, .mono { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; }
pre { background:#f8f9fb; padding:10px; border-radius:6px; overflow-x:auto; font-size:12.5px; }
.grid2 { display:grid; grid-template-columns:1fr 1fr; gap:4px 24px; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:3px 14px; margin:0; font-size:14px; }
dl.facts dt { color:var(--muted); } dl.facts dd { margin:0; }
.alert { color:var(--fail); font-weight:600; }
footer { color:var(--muted); font-size:12.5px; margin-top:22px; text-align:center; }
)";

// The verdict colours of the bars, after svg_chart_style().
const char* kToneStyle = R"(svg .bar { fill:var(--info); } svg .tone-pass { fill:var(--pass); } svg .tone-warn { fill:var(--warn); }
svg .tone-fail { fill:var(--fail); } svg .tone-skipped, svg .tone-none { fill:var(--skipped); }
svg .tone-bound { fill:var(--fail); } svg .tone-invalid { fill:var(--fail); }
svg .tone-inconclusive { fill:var(--unsure); } svg .tone-info { fill:var(--info); }
)";


// ---- header, findings, budget -------------------------------------------------------------

void render_header(std::ostringstream& out, const Report& report, const Inventory& inventory,
                   const Judged& judged) {
  const bool judged_any = is_judged(judged);
  const Verdict* overall = judged_any ? &judged.overall : nullptr;
  std::string badge = judged_any ? to_string(judged.overall) : "not judged";
  for (char& c : badge) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out << "<header class=\"top " << verdict_class(overall) << "\"><div class=\"badge " << verdict_class(overall)
      << "\">" << h(badge) << "</div><div><h1>pipecheck report: " << h(report.host) << "</h1>"
      << "<p class=\"meta\">" << h(report.mode) << " run, " << h(report.started_utc) << " to "
      << h(report.finished_utc) << " &middot; pipecheck " << h(report.pipecheck_version)
      << " &middot; report schema " << report.version << "</p>";
  if (!inventory.gpus.empty()) {
    std::map<std::string, int> names;
    for (const auto& gpu : inventory.gpus) ++names[gpu.name];
    out << "<p class=\"meta\">";
    bool first = true;
    for (const auto& [name, count] : names) {
      out << (first ? "" : ", ") << count << " x " << h(name);
      first = false;
    }
    out << " &middot; " << h(inventory.cpu.model) << "</p>";
  } else {
    out << "<p class=\"meta\">no GPU seen &middot; " << h(inventory.cpu.model) << "</p>";
  }
  out << "<p class=\"meta\"><b>" << h(counts_text(count_verdicts(judged))) << "</b>"
      << (judged_any ? " (overall = the worst verdict; exit code " +
                           std::to_string(code(exit_code_for(judged.overall))) + ")"
                     : "")
      << "</p></div></header>\n";
}

void render_nav(std::ostringstream& out, const std::string& attention, bool budget, bool curves, bool telemetry,
                bool baseline) {
  out << "<nav>";
  if (!attention.empty()) out << "<a href=\"#attention\">" << h(attention) << "</a>";
  out << "<a href=\"#findings\">Findings</a>";
  if (budget) out << "<a href=\"#budget\">Pipeline budget</a>";
  out << "<a href=\"#stages\">Stages</a>";
  if (curves) out << "<a href=\"#curves\">Curves</a>";
  if (telemetry) out << "<a href=\"#telemetry\">Stress telemetry</a>";
  out << "<a href=\"#checks\">Checks</a><a href=\"#probes\">Probes</a><a href=\"#inventory\">Inventory</a>";
  if (baseline) out << "<a href=\"#baseline\">Baseline</a>";
  out << "</nav>\n";
}

void render_findings(std::ostringstream& out, const Judged& judged) {
  out << "<section id=\"findings\"><h2>Findings</h2>\n";
  if (judged.findings.empty()) {
    out << "<p class=\"small\">" << (is_judged(judged) ? "No findings: nothing stood out." : "Not judged.")
        << "</p>";
  } else {
    // Worst first, in the judge's order within a severity.
    std::vector<const Finding*> ordered;
    for (const auto& f : judged.findings) ordered.push_back(&f);
    auto rank = [](Verdict v) { return -severity(v); };
    std::stable_sort(ordered.begin(), ordered.end(),
                     [&](const Finding* a, const Finding* b) { return rank(a->severity) < rank(b->severity); });
    out << "<ul class=\"findings\">\n";
    for (const Finding* f : ordered) {
      out << "<li class=\"" << verdict_class(f->severity) << "\">" << chip(f->severity) << " <b>"
          << h(stage_title(f->stage)) << "</b>: " << h(f->text);
      if (!f->evidence.empty()) {
        out << "<div class=\"evidence\">from ";
        for (std::size_t i = 0; i < f->evidence.size(); ++i) {
          out << (i ? ", " : "") << "<code>" << h(f->evidence[i]) << "</code>";
        }
        out << "</div>";
      }
      out << "</li>\n";
    }
    out << "</ul>";
  }
  out << "</section>\n";
}

void render_budget(std::ostringstream& out, const PipelineBudget& budget) {
  out << "<section id=\"budget\"><h2>Pipeline budget</h2>\n<p>Workload: " << h(budget.workload) << "</p>\n";
  BarChart chart;
  chart.title = "Samples/s each stage can deliver (the lowest bounds training)";
  // The axis ends at 4x the bounding rate: a stage 100x faster than needed needs no exact bar.
  for (const auto& stage : budget.stages) {
    if (stage.stage == budget.bounding_stage && stage.samples_per_second) chart.scale_max = 4 * *stage.samples_per_second;
  }
  for (const auto& stage : budget.stages) {
    if (!stage.samples_per_second) continue;
    ChartBar bar;
    bar.label = stage_title(stage.stage);
    bar.value = *stage.samples_per_second;
    const bool bounding = stage.stage == budget.bounding_stage;
    bar.note = format_figure(*stage.samples_per_second) + " samples/s" + (bounding ? "  (bounds training)" : "");
    bar.tooltip = stage.derivation;
    bar.tone = bounding ? "bound" : "info";
    chart.bars.push_back(bar);
  }
  if (!chart.bars.empty()) out << render_bar_chart(chart);
  if (!budget.explanation.empty()) out << "<p><b>" << h(budget.explanation) << "</b></p>\n";
  out << "<table><tr><th>stage</th><th>samples/s</th><th>how</th></tr>\n";
  for (const auto& stage : budget.stages) {
    out << "<tr" << (stage.stage == budget.bounding_stage ? " class=\"v-fail\"" : "") << "><td>"
        << h(stage_title(stage.stage)) << "</td><td class=\"num\">"
        << (stage.samples_per_second ? h(format_figure(*stage.samples_per_second)) : "-")
        << "</td><td class=\"why\">" << h(stage.derivation) << "</td></tr>\n";
  }
  out << "</table></section>\n";
}

// ---- stages -----------------------------------------------------------------------------------

void render_stage(std::ostringstream& out, const Report& report, const std::string& stage,
                  const JudgementIndex& index) {
  const auto measurements = measurements_of(report, stage);
  out << "<h3 id=\"stage-" << h(stage) << "\">" << h(stage_title(stage)) << "</h3>\n";
  if (measurements.empty()) {
    out << "<p class=\"small\">No measurements";
    for (const auto& probe : report.probes) {
      if (probe.stage == stage) out << " &middot; " << h(probe.probe) << ": " << h(to_string(probe.status)) << ", " << h(reason_beside_status(probe));
    }
    out << "</p>\n";
    return;
  }
  // One bar chart a unit: GB/s and IOPS do not share an axis.
  std::vector<std::string> units;
  for (const Measurement* m : measurements) {
    if (std::find(units.begin(), units.end(), m->unit) == units.end()) units.push_back(m->unit);
  }
  for (const auto& unit : units) {
    BarChart chart;
    chart.title = unit + ": measured median (bar) against the ceiling (track end)";
    for (const Measurement* m : measurements) {
      if (m->unit != unit) continue;
      ChartBar bar;
      bar.label = m->what;
      bar.value = m->stats.median;
      if (m->ceiling.ceiling && m->ceiling.ceiling->unit == m->unit) bar.ceiling = m->ceiling.ceiling->value;
      bar.note = measured_text(*m) + (m->percent_of_ceiling ? ", " + percent_text(*m) + " of " + ceiling_value_text(*m)
                                                              : ", no ceiling");
      bar.tooltip = "ceiling: " + ceiling_note(*m);
      const Judgement* j = index.find(m->key);
      if (j) bar.tooltip += "\n" + std::string(to_string(j->verdict)) + ": " + j->explanation;
      bar.tone = j ? to_string(j->verdict) : "none";
      chart.bars.push_back(bar);
    }
    out << render_bar_chart(chart);
  }
  out << "<table><tr><th>what</th><th class=\"num\">measured</th><th class=\"num\">min - max</th>"
         "<th class=\"num\">ceiling</th><th class=\"num\">%</th>"
         "<th>verdict</th><th>ceiling derivation &middot; judged by</th></tr>\n";
  for (const Measurement* m : measurements) {
    const Judgement* j = index.find(m->key);
    const Verdict* verdict = j ? &j->verdict : nullptr;
    out << "<tr class=\"" << verdict_class(verdict) << "\"><td class=\"what\" title=\"" << h(m->key) << "\">" << h(m->what)
        << "</td><td class=\"num\">" << h(measured_text(*m)) << "</td><td class=\"num\">" << h(range_text(*m))
        << "</td><td class=\"num\">" << h(ceiling_value_text(*m)) << "</td><td class=\"num\">"
        << h(percent_text(*m)) << "</td><td>" << chip(verdict) << "</td><td class=\"why\">"
        << h(ceiling_note(*m));
    // Each sentence once: the explanation often restates the ceiling's note.
    const std::string explanation = j ? without_repeated_clauses(j->explanation, ceiling_note(*m)) : "";
    if (!explanation.empty()) out << "<br>" << h(explanation);
    if (j && !j->rule.empty()) out << " <code>" << h(j->rule) << "</code>";
    out << "</td></tr>\n";
  }
  out << "</table>\n";
}

// ---- checks, probes, inventory ----------------------------------------------------------------

void render_checks(std::ostringstream& out, const Report& report, const Judged& judged) {
  out << "<section id=\"checks\"><h2>Other checks</h2>\n";
  const auto others = other_judgements(report, judged);
  if (others.empty()) {
    out << "<p class=\"small\">No checks beyond the measurements.</p>";
  } else {
    out << "<table><tr><th>check</th><th>verdict</th><th>why</th></tr>\n";
    for (const Judgement* j : others) {
      out << "<tr class=\"" << verdict_class(j->verdict) << "\"><td><code>" << h(j->subject) << "</code><br>"
          << h(j->what) << "</td><td>" << chip(j->verdict) << "</td><td class=\"why\">" << h(j->explanation);
      if (!j->rule.empty()) out << " <code>" << h(j->rule) << "</code>";
      out << "</td></tr>\n";
    }
    out << "</table>";
  }
  out << "</section>\n";
}

// Why each figure's probe stopped repeating it and how long that took (core/stopping_rule),
// folded under the probes; nothing for reports that did not keep it.
void render_repetitions(std::ostringstream& out, const Report& report) {
  std::ostringstream rows;
  for (const auto& p : report.probes) {
    for (const auto& m : p.measurements) {
      if (m.stopping.empty()) continue;
      rows << "<tr><td>" << h(m.what) << "</td><td class=\"num\">" << m.repetitions.size() << "</td><td class=\"why\">"
           << h(m.stopping) << "</td></tr>\n";
    }
  }
  if (rows.str().empty()) return;
  out << "\n<details id=\"repetitions\"><summary>Repetitions: why each figure stopped</summary>\n<table><tr><th>what</th>"
         "<th class=\"num\">repetitions</th><th>why it stopped</th></tr>\n"
      << rows.str() << "</table></details>";
}

void render_probes(std::ostringstream& out, const Report& report) {
  out << "<section id=\"probes\"><h2>Probes</h2>\n<table><tr><th>probe</th><th>stage</th><th>status</th>"
         "<th class=\"num\">seconds</th><th class=\"num\">measurements</th><th>reason</th></tr>\n";
  for (const auto& p : report.probes) {
    const std::string cls = p.status == ProbeStatus::failed    ? "v-fail"
                            : p.status == ProbeStatus::ok      ? (p.case_errors.empty() ? "v-pass" : "v-warn")
                                                               : "v-skipped";
    out << "<tr class=\"" << cls << "\"><td><code>" << h(p.probe) << "</code></td><td>" << h(p.stage)
        << "</td><td><span class=\"chip " << cls << "\">" << h(to_string(p.status)) << "</span></td><td class=\"num\">"
        << h(fmt(p.seconds)) << "</td><td class=\"num\">" << p.measurements.size() << "</td><td class=\"why\">"
        << h(p.reason);
    for (const auto& error : p.case_errors) out << "<br>case error: " << h(error);
    out << "</td></tr>\n";
  }
  out << "</table>";
  render_repetitions(out, report);
  out << "</section>\n";
}

}  // namespace

std::string render_html(const Report& report, const Inventory& inventory, const Judged& judged,
                        const RenderExtras& extras) {
  const std::string curves = html::render_curves(report);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>pipecheck: " << h(report.host) << " " << h(report.started_utc) << "</title>\n<style>" << kPageStyle
      << svg_chart_style() << kToneStyle << "</style>\n</head>\n<body>\n<main>\n";
  render_header(out, report, inventory, judged);
  html::render_attention(out, report, judged);
  render_nav(out, html::attention_title(judged), judged.budget.has_value(), !curves.empty(),
             extras.telemetry.has_value(), !extras.baseline_comparison.empty());
  render_findings(out, judged);
  if (judged.budget) render_budget(out, *judged.budget);
  const JudgementIndex index(judged);
  out << "<section id=\"stages\"><h2>Stages: measured against the hardware's ceiling</h2>\n"
      << "<p class=\"small\">Bars are the median of the repetitions; the grey track ends at the ceiling. "
         "Hover a bar for the ceiling's derivation.</p>\n";
  for (const auto& stage : stages_in_pipeline_order(report)) render_stage(out, report, stage, index);
  out << "</section>\n";
  if (!curves.empty()) out << "<section id=\"curves\"><h2>Scaling and size sweeps</h2>\n" << curves << "</section>\n";
  if (extras.telemetry) html::render_telemetry(out, *extras.telemetry);
  if (!extras.burn_rates.empty()) {
    out << "<section id=\"burn-rates\"><h2>Burn rates against their ceilings</h2>\n";
    for (const auto& line : extras.burn_rates) out << "<p>" << h(line) << "</p>\n";
    out << "</section>\n";
  }
  render_checks(out, report, judged);
  render_probes(out, report);
  out << render_conditions_html(report);
  html::render_inventory(out, inventory);
  if (!extras.baseline_comparison.empty()) {
    out << "<section id=\"baseline\"><h2>Against the baseline</h2>\n<pre>" << h(extras.baseline_comparison)
        << "</pre></section>\n";
  }
  out << "<footer>pipecheck " << h(report.pipecheck_version) << " &middot; rendered from report.json and "
      << "inventory.json &middot; self-contained: no scripts, no network</footer>\n</main>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace pipecheck
