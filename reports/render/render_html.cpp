// HTML renderer. The page is built from the same records as every other renderer; each string
// from the records goes through html_escape (the `h` helper) on its way out, charts included.
#include "reports/render/render_html.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "inventory/software_stack.hpp"
#include "reports/render/conditions_text.hpp"
#include "reports/render/escape.hpp"
#include "reports/render/summary_table.hpp"
#include "reports/render/svg_chart.hpp"

namespace pipecheck {

namespace {

std::string h(std::string_view text) { return html_escape(text); }

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
svg .tone-bound { fill:var(--fail); }
)";

// A verdict's CSS class; nullptr (not judged) gets the neutral one. A pointer, not an optional:
// GCC 12 at -O3 warns (falsely) of an uninitialized optional<enum> here.
std::string verdict_class(const Verdict* verdict) {
  return verdict ? std::string("v-") + to_string(*verdict) : "v-none";
}
std::string verdict_class(Verdict verdict) { return verdict_class(&verdict); }

std::string chip(const Verdict* verdict) {
  return "<span class=\"chip " + verdict_class(verdict) + "\">" + (verdict ? to_string(*verdict) : "-") + "</span>";
}
std::string chip(Verdict verdict) { return chip(&verdict); }

std::string fmt(double value, const char* format = "%.1f") {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string bytes_text(double bytes) { return bytes_label(bytes); }

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

std::string param(const Measurement& m, const std::string& name) {
  const auto it = m.params.find(name);
  return it == m.params.end() ? "" : it->second;
}

// A series name from the params that tell one curve from another ("gpu 0, h2d, pinned, local").
// A fixed list, in this order: other params (figures, flags) must not split a curve.
std::string series_name(const Measurement& m, const std::set<std::string>& leave_out) {
  static const char* const kIdentity[] = {"gpu", "device", "direction", "host_memory", "numa", "collective",
                                          "op", "case", "set", "dtype", "pattern", "threads"};
  std::string name;
  for (const char* key : kIdentity) {
    const std::string value = param(m, key);
    if (leave_out.count(key) || value.empty()) continue;
    if (!name.empty()) name += ", ";
    name += is_number(value) ? std::string(key) + " " + value : value;
  }
  return name.empty() ? m.stage : name;
}

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

void render_nav(std::ostringstream& out, bool budget, bool curves, bool telemetry, bool baseline) {
  out << "<nav><a href=\"#findings\">Findings</a>";
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
      if (probe.stage == stage) out << " &middot; " << h(probe.probe) << ": " << h(to_string(probe.status)) << ", " << h(probe.reason);
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
    if (j && !j->explanation.empty()) out << "<br>" << h(j->explanation);
    if (j && !j->rule.empty()) out << " <code>" << h(j->rule) << "</code>";
    out << "</td></tr>\n";
  }
  out << "</table>\n";
}

// ---- curves -----------------------------------------------------------------------------------

struct CurveGroup {
  std::string stage;
  std::string unit;
  std::map<std::string, std::vector<LinePoint>> series;  // name -> points
};

double size_of(const Measurement& m) {
  const std::string text = !param(m, "bytes").empty() ? param(m, "bytes") : param(m, "size");
  return is_number(text) ? std::strtod(text.c_str(), nullptr) : -1;
}

// Groups measurements by (stage, unit) and series, x from `x_of` (negative: not on a curve).
template <typename XOf>
std::vector<CurveGroup> curve_groups(const Report& report, XOf x_of, const std::set<std::string>& leave_out) {
  std::vector<CurveGroup> groups;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      const double x = x_of(m);
      if (!(x > 0)) continue;
      auto group = std::find_if(groups.begin(), groups.end(),
                                [&](const CurveGroup& g) { return g.stage == m.stage && g.unit == m.unit; });
      if (group == groups.end()) {
        groups.push_back({m.stage, m.unit, {}});
        group = groups.end() - 1;
      }
      const std::string name = series_name(m, leave_out);
      group->series[name].push_back({x, m.stats.median, m.what + ": " + measured_text(m)});
    }
  }
  // A curve needs two x values; groups with none left are dropped.
  for (auto& group : groups) {
    for (auto it = group.series.begin(); it != group.series.end();) {
      std::set<double> xs;
      for (const auto& p : it->second) xs.insert(p.x);
      it = xs.size() < 2 ? group.series.erase(it) : std::next(it);
    }
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(), [](const CurveGroup& g) { return g.series.empty(); }),
               groups.end());
  return groups;
}

std::string render_curves(const Report& report) {
  std::ostringstream out;
  const std::set<std::string> common_leave_out = {"verified", "gpu_bdf", "buffer_bytes", "target"};
  std::set<std::string> thread_leave_out = common_leave_out;
  thread_leave_out.insert("threads");
  const auto thread_groups = curve_groups(
      report,
      [](const Measurement& m) {
        const std::string t = param(m, "threads");
        return is_number(t) ? std::strtod(t.c_str(), nullptr) : -1.0;
      },
      thread_leave_out);
  for (const auto& group : thread_groups) {
    LineChart chart;
    chart.title = stage_title(group.stage) + ": scaling with threads (" + group.unit + ")";
    chart.x_label = "threads";
    chart.y_label = group.unit;
    chart.log2_x = false;  // speed-up reads true on linear axes: a straight line is perfect scaling
    int tone = 0;
    for (const auto& [name, points] : group.series) chart.series.push_back({name, points, false, tone++});
    // Perfect scaling from each curve's 1-thread point, where few curves keep the chart readable.
    if (group.series.size() <= 2) {
      tone = 0;
      for (const auto& [name, points] : group.series) {
        const int curve_tone = tone++;
        auto one = std::find_if(points.begin(), points.end(), [](const LinePoint& p) { return p.x == 1; });
        if (one == points.end()) continue;
        LineSeries ideal{name + ": linear", {}, true, curve_tone};
        for (const auto& p : points) ideal.points.push_back({p.x, one->y * p.x, ""});
        chart.series.push_back(ideal);
      }
    }
    out << render_line_chart(chart);
  }
  std::set<std::string> size_leave_out = common_leave_out;
  size_leave_out.insert({"bytes", "size"});
  for (const auto& group : curve_groups(report, size_of, size_leave_out)) {
    LineChart chart;
    chart.title = stage_title(group.stage) + ": by transfer size (" + group.unit + ")";
    chart.x_label = "bytes";
    chart.y_label = group.unit;
    chart.x_format = AxisFormat::bytes;
    chart.log2_x = true;
    for (const auto& [name, points] : group.series) chart.series.push_back({name, points, false, -1});
    out << render_line_chart(chart);
  }
  return out.str();
}

// ---- telemetry --------------------------------------------------------------------------------

std::string gpu_label(const TelemetrySample& s) {
  if (s.gpu_index) return "GPU " + std::to_string(*s.gpu_index);
  return s.gpu_bus_id.empty() ? "GPU ?" : "GPU " + s.gpu_bus_id;
}

// Throttle periods: from a throttled sample to the next sample time, merged where they touch.
std::vector<ChartBand> throttle_bands(const std::vector<TelemetrySample>& samples) {
  std::vector<double> times;
  for (const auto& s : samples) times.push_back(s.elapsed_s);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  double step = 1;
  if (times.size() >= 2) step = (times.back() - times.front()) / static_cast<double>(times.size() - 1);
  std::vector<ChartBand> bands;
  for (const auto& s : samples) {
    if (s.source != "gpu" || !is_throttled(s)) continue;
    const auto next = std::upper_bound(times.begin(), times.end(), s.elapsed_s);
    bands.push_back({s.elapsed_s, next == times.end() ? s.elapsed_s + step : *next});
  }
  std::sort(bands.begin(), bands.end(), [](const ChartBand& a, const ChartBand& b) { return a.x0 < b.x0; });
  std::vector<ChartBand> merged;
  for (const auto& band : bands) {
    if (!merged.empty() && band.x0 <= merged.back().x1 + 1e-9) {
      merged.back().x1 = std::max(merged.back().x1, band.x1);
    } else {
      merged.push_back(band);
    }
  }
  return merged;
}

using Field = std::optional<double> TelemetrySample::*;

LineChart telemetry_chart(const TelemetryLog& log, const std::vector<ChartBand>& bands, const std::string& title,
                          const std::string& y_label, const std::vector<std::pair<Field, std::string>>& fields,
                          bool host) {
  LineChart chart;
  chart.title = title;
  chart.x_label = "elapsed time";
  chart.y_label = y_label;
  chart.x_format = AxisFormat::seconds;
  chart.bands = bands;
  chart.band_label = "thermal/HW slowdown (any GPU)";
  for (const auto& s : log.samples) {
    chart.x_min = std::min(chart.x_min.value_or(s.elapsed_s), s.elapsed_s);
    chart.x_max = std::max(chart.x_max.value_or(s.elapsed_s), s.elapsed_s);
  }
  // One colour a GPU across its fields; the host's fields differ in colour.
  std::map<std::string, int> gpu_tone;
  int field_index = 0;
  for (const auto& [field, suffix] : fields) {
    std::map<std::string, LineSeries> by_source;
    std::vector<std::string> order;
    for (const auto& s : log.samples) {
      if ((s.source == "host") != host || !(s.*field)) continue;
      const std::string source = host ? std::string("host") : gpu_label(s);
      const std::string name = source + suffix;
      if (!by_source.count(name)) {
        order.push_back(name);
        const int tone = host ? field_index : gpu_tone.emplace(source, static_cast<int>(gpu_tone.size())).first->second;
        // A second field of the same GPU (its HBM, its limit) is told apart by the dash.
        const bool dashed = !host && field_index > 0;
        by_source[name] = LineSeries{name, {}, dashed, tone};
      }
      by_source[name].points.push_back({s.elapsed_s, *(s.*field), ""});
    }
    for (const auto& name : order) chart.series.push_back(by_source[name]);
    ++field_index;
  }
  return chart;
}

struct GpuTelemetrySummary {
  std::string label;
  int samples = 0;
  std::optional<double> max_temp, max_mem_temp, max_power, power_limit, min_clock, max_clock;
  double throttled_s = 0;
  std::set<std::string> reasons;
  std::optional<double> ecc_corrected, ecc_uncorrected, pcie_replays, wrong_results;
  std::set<std::string> xids;
  std::vector<double> tflops;
};

void keep_max(std::optional<double>& into, const std::optional<double>& value) {
  if (value && (!into || *value > *into)) into = value;
}
void keep_min(std::optional<double>& into, const std::optional<double>& value) {
  if (value && (!into || *value < *into)) into = value;
}
std::string opt(const std::optional<double>& value, const char* format, const std::string& unit = "") {
  return value ? fmt(*value, format) + unit : "-";
}

void render_telemetry(std::ostringstream& out, const TelemetryLog& log) {
  out << "<section id=\"telemetry\"><h2>Stress telemetry</h2>\n";
  if (log.samples.empty()) {
    out << "<p class=\"small\">telemetry.csv has no complete rows.</p>";
  } else {
    const std::vector<ChartBand> bands = throttle_bands(log.samples);
    double throttled_total = 0;
    for (const auto& band : bands) throttled_total += band.x1 - band.x0;
    out << "<p>" << log.samples.size() << " samples over "
        << h(fmt(log.samples.back().elapsed_s - log.samples.front().elapsed_s, "%.0f")) << " s";
    if (!bands.empty()) {
      out << "; <span class=\"alert\">throttled for " << h(fmt(throttled_total, "%.0f")) << " s</span> (shaded)";
    } else {
      out << "; no throttling";
    }
    out << ".</p>\n";
    const std::vector<LineChart> charts = {
        telemetry_chart(log, bands, "GPU temperature (\xC2\xB0""C)", "\xC2\xB0""C",
                         {{&TelemetrySample::temp_c, ""}, {&TelemetrySample::mem_temp_c, " HBM"}}, false),
        telemetry_chart(log, bands, "GPU power (W)", "W",
                         {{&TelemetrySample::power_w, ""}, {&TelemetrySample::power_limit_w, " limit"}}, false),
        telemetry_chart(log, bands, "SM clock (MHz)", "MHz", {{&TelemetrySample::sm_clock_mhz, ""}}, false),
        telemetry_chart(log, bands, "Burn throughput (TFLOP/s)", "TFLOP/s", {{&TelemetrySample::tflops, ""}}, false),
        telemetry_chart(log, bands, "Host CPU", "% / \xC2\xB0""C / W",
                         {{&TelemetrySample::cpu_util_pct, " util %"}, {&TelemetrySample::cpu_temp_c, " \xC2\xB0""C"},
                          {&TelemetrySample::cpu_package_w, " package W"}}, true),
    };
    for (const auto& chart : charts) {
      if (!chart.series.empty()) out << render_line_chart(chart);
    }
    // Per GPU summary.
    std::map<std::string, GpuTelemetrySummary> gpus;
    std::vector<std::string> order;
    std::vector<double> times;
    for (const auto& s : log.samples) times.push_back(s.elapsed_s);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    for (const auto& s : log.samples) {
      if (s.source != "gpu") continue;
      const std::string label = gpu_label(s);
      if (!gpus.count(label)) order.push_back(label);
      GpuTelemetrySummary& g = gpus[label];
      g.label = label;
      ++g.samples;
      keep_max(g.max_temp, s.temp_c);
      keep_max(g.max_mem_temp, s.mem_temp_c);
      keep_max(g.max_power, s.power_w);
      keep_max(g.power_limit, s.power_limit_w);
      keep_min(g.min_clock, s.sm_clock_mhz);
      keep_max(g.max_clock, s.sm_clock_mhz);
      keep_max(g.ecc_corrected, s.ecc_corrected);
      keep_max(g.ecc_uncorrected, s.ecc_uncorrected);
      keep_max(g.pcie_replays, s.pcie_replays);
      keep_max(g.wrong_results, s.wrong_results);
      if (s.tflops) g.tflops.push_back(*s.tflops);
      if (!s.xid.empty() && s.xid != "0") g.xids.insert(s.xid);
      if (is_throttled(s)) {
        const auto next = std::upper_bound(times.begin(), times.end(), s.elapsed_s);
        if (next != times.end()) g.throttled_s += *next - s.elapsed_s;
        for (const auto& r : s.throttle_reasons) g.reasons.insert(r);
      }
    }
    out << "<table><tr><th>GPU</th><th>samples</th><th>max temp</th><th>max HBM temp</th><th>max power / limit</th>"
           "<th>SM clock min - max</th><th>TFLOP/s median</th><th>throttled</th><th>ECC corr / uncorr</th>"
           "<th>PCIe replays</th><th>Xid</th><th>wrong results</th></tr>\n";
    for (const auto& label : order) {
      GpuTelemetrySummary& g = gpus[label];
      std::optional<double> median_tflops;
      if (!g.tflops.empty()) {
        std::sort(g.tflops.begin(), g.tflops.end());
        median_tflops = g.tflops[g.tflops.size() / 2];
      }
      std::string reasons;
      for (const auto& r : g.reasons) reasons += (reasons.empty() ? "" : ", ") + r;
      std::string xids;
      for (const auto& x : g.xids) xids += (xids.empty() ? "" : ", ") + x;
      const bool bad_errors = g.ecc_uncorrected.value_or(0) > 0 || g.wrong_results.value_or(0) > 0 || !g.xids.empty();
      out << "<tr" << (bad_errors ? " class=\"v-fail\"" : g.throttled_s > 0 ? " class=\"v-warn\"" : "") << "><td>"
          << h(g.label) << "</td><td class=\"num\">" << g.samples << "</td><td class=\"num\">"
          << h(opt(g.max_temp, "%.0f", " \xC2\xB0""C")) << "</td><td class=\"num\">"
          << h(opt(g.max_mem_temp, "%.0f", " \xC2\xB0""C")) << "</td><td class=\"num\">" << h(opt(g.max_power, "%.0f"))
          << " / " << h(opt(g.power_limit, "%.0f", " W")) << "</td><td class=\"num\">" << h(opt(g.min_clock, "%.0f"))
          << " - " << h(opt(g.max_clock, "%.0f", " MHz")) << "</td><td class=\"num\">" << h(opt(median_tflops, "%.0f"))
          << "</td><td>" << (g.throttled_s > 0 ? h(fmt(g.throttled_s, "%.0f") + " s: " + reasons) : "-")
          << "</td><td class=\"num\">" << h(opt(g.ecc_corrected, "%.0f")) << " / " << h(opt(g.ecc_uncorrected, "%.0f"))
          << "</td><td class=\"num\">" << h(opt(g.pcie_replays, "%.0f")) << "</td><td>" << (xids.empty() ? "-" : h(xids))
          << "</td><td class=\"num\">" << h(opt(g.wrong_results, "%.0f")) << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  if (!log.dropped.empty()) {
    out << "<p class=\"small\">" << log.dropped.size() << " row(s) of telemetry.csv left out: ";
    for (std::size_t i = 0; i < log.dropped.size(); ++i) out << (i ? "; " : "") << h(log.dropped[i]);
    out << "</p>\n";
  }
  out << "</section>\n";
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
  out << "</table></section>\n";
}

template <typename T>
std::string known(const std::optional<T>& value, const std::string& suffix = "") {
  if (!value) return "unknown";
  std::ostringstream text;
  text << *value << suffix;
  return text.str();
}

std::string link_text(const PcieLink& link) {
  if (!link.current_gts && !link.current_width) return "unknown";
  auto one = [](const std::optional<double>& gts, const std::optional<int>& width) {
    return (gts ? fmt(*gts, "%g") : std::string("?")) + " GT/s x" + (width ? std::to_string(*width) : "?");
  };
  return one(link.current_gts, link.current_width) + " (max " + one(link.max_gts, link.max_width) + ")";
}

std::string gib(std::uint64_t bytes) { return bytes ? bytes_text(static_cast<double>(bytes)) : "unknown"; }

void render_inventory(std::ostringstream& out, const Inventory& inv) {
  out << "<section id=\"inventory\"><h2>Inventory</h2>\n<div class=\"grid2\"><dl class=\"facts\">"
      << "<dt>host</dt><dd>" << h(inv.hostname) << "</dd><dt>collected</dt><dd>" << h(inv.collected_utc) << "</dd>"
      << "<dt>CPU</dt><dd>" << h(inv.cpu.model) << "</dd><dt>cores</dt><dd>" << inv.cpu.sockets << " socket(s), "
      << inv.cpu.physical_cores << " cores, " << inv.cpu.logical_cpus << " threads, " << inv.cpu.numa_nodes
      << " NUMA node(s)</dd><dt>memory</dt><dd>" << h(gib(inv.memory.total_bytes));
  if (!inv.memory.dimms.empty()) {
    std::map<std::string, int> kinds;
    for (const auto& d : inv.memory.dimms) {
      kinds[gib(d.size_bytes) + " " + d.type + (d.speed_mts ? " " + std::to_string(*d.speed_mts) + " MT/s" : "")]++;
    }
    for (const auto& [kind, n] : kinds) out << ", " << n << " x " << h(kind);
  }
  out << ", " << h(inv.memory.memory_channels ? std::to_string(*inv.memory.memory_channels) + " channels"
                                              : std::string("channels not reported"))
      << "</dd></dl><dl class=\"facts\">";
  const SoftwareStack& s = inv.software;
  out << "<dt>kernel</dt><dd>" << h(s.kernel) << "</dd><dt>NVIDIA driver</dt><dd>"
      << h(s.driver_version.value_or("not found")) << "</dd><dt>CUDA</dt><dd>driver "
      << h(s.driver_cuda_version ? format_cuda_version(*s.driver_cuda_version) : "unknown") << ", built with "
      << h(s.runtime_cuda_version ? format_cuda_version(*s.runtime_cuda_version) : (s.cuda_built ? "unknown" : "none"))
      << "</dd><dt>NCCL</dt><dd>" << h(s.nccl_version ? format_nccl_version(*s.nccl_version) : "not built")
      << "</dd><dt>container</dt><dd>" << (s.in_container ? "yes: " + h(s.container_evidence) : "no") << "</dd>";
  if (auto mismatch = s.cuda_mismatch()) out << "<dt>warning</dt><dd class=\"alert\">" << h(*mismatch) << "</dd>";
  out << "</dl></div>\n";
  if (!inv.gpus.empty()) {
    out << "<h3>GPUs</h3><table><tr><th>#</th><th>name</th><th>bus id</th><th>CC</th><th>SMs</th><th>max SM clock</th>"
           "<th>memory</th><th>PCIe link</th><th>NUMA</th><th>power limit</th><th>NVLink</th></tr>\n";
    for (const auto& g : inv.gpus) {
      out << "<tr" << (g.pcie.downtrained() ? " class=\"v-fail\"" : "") << "><td>" << g.cuda_index << "</td><td>"
          << h(g.name) << "</td><td><code>" << h(g.pci_bdf) << "</code></td><td>" << g.cc_major << "." << g.cc_minor
          << "</td><td class=\"num\">" << h(known(g.sm_count)) << "</td><td class=\"num\">"
          << h(known(g.max_sm_clock_mhz, " MHz")) << "</td><td class=\"num\">"
          << h(g.memory_bytes ? bytes_text(static_cast<double>(*g.memory_bytes)) : "unknown") << "</td><td>"
          << h(link_text(g.pcie)) << (g.pcie.downtrained() ? " <span class=\"alert\">below max</span>" : "")
          << "</td><td class=\"num\">" << h(known(g.numa_node)) << "</td><td class=\"num\">"
          << h(known(g.power_limit_w, " W")) << "</td><td>" << g.nvlink.active_links << " of "
          << g.nvlink.total_links_probed << (g.nvlink.version ? ", v" + std::to_string(*g.nvlink.version) : "")
          << "</td></tr>\n";
    }
    out << "</table>\n";
  }
  out << "<h3>Disks</h3><table><tr><th>name</th><th>model</th><th>kind</th><th>size</th><th>transport</th>"
         "<th>link</th><th>NUMA</th></tr>\n";
  for (const auto& d : inv.disks) {
    std::string link = d.sata_gbps ? fmt(*d.sata_gbps, "%g") + " Gb/s SATA" : link_text(d.pcie);
    out << "<tr><td><code>" << h(d.name) << "</code></td><td>" << h(d.model) << "</td><td>" << h(to_string(d.kind))
        << "</td><td class=\"num\">" << h(gib(d.size_bytes)) << "</td><td>" << h(d.transport) << "</td><td>"
        << h(link) << "</td><td class=\"num\">" << h(known(d.numa_node)) << "</td></tr>\n";
  }
  out << "</table>\n";
  if (!inv.notes.empty()) {
    out << "<h3>Notes</h3><ul>";
    for (const auto& note : inv.notes) out << "<li class=\"small\">" << h(note) << "</li>";
    out << "</ul>\n";
  }
  out << "</section>\n";
}

}  // namespace

std::string render_html(const Report& report, const Inventory& inventory, const Judged& judged,
                        const RenderExtras& extras) {
  const std::string curves = render_curves(report);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>pipecheck: " << h(report.host) << " " << h(report.started_utc) << "</title>\n<style>" << kPageStyle
      << svg_chart_style() << kToneStyle << "</style>\n</head>\n<body>\n<main>\n";
  render_header(out, report, inventory, judged);
  render_nav(out, judged.budget.has_value(), !curves.empty(), extras.telemetry.has_value(),
             !extras.baseline_comparison.empty());
  render_findings(out, judged);
  if (judged.budget) render_budget(out, *judged.budget);
  const JudgementIndex index(judged);
  out << "<section id=\"stages\"><h2>Stages: measured against the hardware's ceiling</h2>\n"
      << "<p class=\"small\">Bars are the median of the repetitions; the grey track ends at the ceiling. "
         "Hover a bar for the ceiling's derivation.</p>\n";
  for (const auto& stage : stages_in_pipeline_order(report)) render_stage(out, report, stage, index);
  out << "</section>\n";
  if (!curves.empty()) out << "<section id=\"curves\"><h2>Scaling and size sweeps</h2>\n" << curves << "</section>\n";
  if (extras.telemetry) render_telemetry(out, *extras.telemetry);
  render_checks(out, report, judged);
  render_probes(out, report);
  out << render_conditions_html(report);
  render_inventory(out, inventory);
  if (!extras.baseline_comparison.empty()) {
    out << "<section id=\"baseline\"><h2>Against the baseline</h2>\n<pre>" << h(extras.baseline_comparison)
        << "</pre></section>\n";
  }
  out << "<footer>pipecheck " << h(report.pipecheck_version) << " &middot; rendered from report.json and "
      << "inventory.json &middot; self-contained: no scripts, no network</footer>\n</main>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace pipecheck
