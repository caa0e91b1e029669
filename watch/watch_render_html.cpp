// HTML renderer of a watch. Each string from the records goes through html_escape (`h`).
#include "watch/watch_render_html.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

#include "render/escape.hpp"
#include "core/figure_text.hpp"
#include "render/svg_chart.hpp"
#include "telemetry/progress_display.hpp"

namespace pipecheck {

namespace {

std::string h(std::string_view text) { return html_escape(text); }

const char* kPageStyle = R"(
:root { --bad:#cc3333; --warn:#c98a00; --good:#1f8f4e; --info:#4a6fc4; --ink:#1d2330; --muted:#5d6576;
  --line:#dde1e8; --bg:#f4f6f9; --card:#fff; }
* { box-sizing:border-box; }
body { margin:0; background:var(--bg); color:var(--ink);
  font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif; }
main { max-width:1120px; margin:0 auto; padding:20px 24px 48px; }
header.top { background:var(--card); border-radius:10px; padding:18px 22px; border-left:10px solid var(--info);
  box-shadow:0 1px 3px rgba(0,0,0,.08); }
header.top.s-gpu { border-left-color:var(--good); } header.top.s-input, header.top.s-storage,
header.top.s-pcie, header.top.s-comm, header.top.s-cpu { border-left-color:var(--bad); }
header.top.s-periodic { border-left-color:var(--warn); }
h1 { font-size:21px; margin:0 0 6px; } h2 { font-size:18px; margin:0 0 10px; }
.verdict { font-size:19px; font-weight:650; margin:8px 0 2px; }
.meta, .small { color:var(--muted); font-size:13px; margin:2px 0; }
section { background:var(--card); border-radius:10px; padding:16px 22px; margin-top:16px;
  box-shadow:0 1px 3px rgba(0,0,0,.08); }
ul.findings { list-style:none; padding:0; margin:0; }
ul.findings li { padding:10px 12px; border-left:4px solid var(--info); background:#f8f9fb; margin-bottom:8px; border-radius:4px; }
ul.findings li.first { border-left-color:var(--bad); background:#fdf3f3; }
.advice { margin-top:4px; } .figs { color:var(--muted); font-size:13px; margin:4px 0 0 16px; padding:0; }
table { border-collapse:collapse; width:100%; font-size:13.5px; margin:6px 0 4px; }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-weight:600; color:var(--muted); font-size:12.5px; background:#f8f9fb; }
td.num { text-align:right; white-space:nowrap; font-variant-numeric:tabular-nums; }
code, pre { font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace; font-size:12.5px; }
pre { background:#f8f9fb; padding:10px; border-radius:6px; overflow-x:auto; }
footer { color:var(--muted); font-size:12.5px; margin-top:22px; text-align:center; }
)";

// The verdict colours of the bars, and thinner series lines (a second a point), after
// svg_chart_style().
const char* kChartStyle = R"(svg .bar { fill:var(--info); } svg .tone-fail { fill:var(--bad); } svg .tone-warn { fill:var(--warn); }
svg .tone-pass { fill:var(--good); } svg .series polyline { stroke-width:1.6; }
)";

// Charts stay readable and the page small: at most this many points a series.
constexpr std::size_t kMaxPoints = 800;

using Pick = std::function<std::optional<double>(const WatchSample&)>;

// One series from the samples (the first, priming, sample left out), averaged over buckets when
// there are more than kMaxPoints.
LineSeries series_of(const std::vector<WatchSample>& samples, const std::string& name, const Pick& pick,
                     bool dashed = false) {
  LineSeries series{name, {}, dashed, -1};
  const std::size_t n = samples.size() > 1 ? samples.size() - 1 : 0;
  const std::size_t stride = std::max<std::size_t>(1, (n + kMaxPoints - 1) / kMaxPoints);
  for (std::size_t start = 1; start < samples.size(); start += stride) {
    double sum = 0, t = 0;
    int count = 0;
    for (std::size_t i = start; i < std::min(samples.size(), start + stride); ++i) {
      if (const auto value = pick(samples[i])) {
        sum += *value;
        t = samples[i].elapsed_s;
        ++count;
      }
    }
    if (count) series.points.push_back({t, sum / count, ""});
  }
  return series;
}

LineChart time_chart(const WatchReport& report, const std::string& title, const std::string& y_label) {
  LineChart chart;
  chart.title = title;
  chart.x_label = "elapsed time";
  chart.y_label = y_label;
  chart.x_format = AxisFormat::seconds;
  for (const auto& e : report.analysis.periodic.idle) chart.bands.push_back({e.start_s, e.end_s});
  chart.band_label = "periodic idle";
  return chart;
}

void add_if_any(LineChart& chart, LineSeries series) {
  if (!series.points.empty()) chart.series.push_back(std::move(series));
}

const GpuWatch* gpu_in(const WatchSample& s, int index) {
  for (const auto& g : s.gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

const DiskWatch* disk_in(const WatchSample& s, const std::string& name) {
  for (const auto& d : s.disks) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::vector<LineChart> gpu_charts(const WatchReport& report, const std::vector<WatchSample>& samples) {
  LineChart util = time_chart(report, "GPU utilization (%)", "%");
  LineChart power = time_chart(report, "GPU power (% of the enforced limit)", "%");
  LineChart pcie = time_chart(report, "PCIe throughput (MB/s)", "MB/s");
  for (const auto& g : report.analysis.gpus) {
    const int i = g.index;
    const std::string name = "gpu" + std::to_string(i);
    add_if_any(util, series_of(samples, name, [i](const WatchSample& s) {
                 const GpuWatch* gpu = gpu_in(s, i);
                 return gpu ? gpu->util_pct : std::nullopt;
               }));
    add_if_any(power, series_of(samples, name, [i](const WatchSample& s) -> std::optional<double> {
                 const GpuWatch* gpu = gpu_in(s, i);
                 if (!gpu || !gpu->power_w || !gpu->power_limit_w || *gpu->power_limit_w <= 0) return std::nullopt;
                 return 100.0 * *gpu->power_w / *gpu->power_limit_w;
               }));
    add_if_any(pcie, series_of(samples, name + " RX", [i](const WatchSample& s) {
                 const GpuWatch* gpu = gpu_in(s, i);
                 return gpu ? gpu->pcie_rx_mbs : std::nullopt;
               }));
    add_if_any(pcie, series_of(samples, name + " TX", [i](const WatchSample& s) {
                 const GpuWatch* gpu = gpu_in(s, i);
                 return gpu ? gpu->pcie_tx_mbs : std::nullopt;
               }, true));
  }
  return {util, power, pcie};
}

std::vector<LineChart> host_charts(const WatchReport& report, const std::vector<WatchSample>& samples) {
  LineChart job = time_chart(report, "The job's CPU (% of one core)", "% of a core");
  add_if_any(job, series_of(samples, "all its threads", [](const WatchSample& s) { return s.job.cpu_pct; }));
  add_if_any(job, series_of(samples, "busiest thread: demand",
                            [](const WatchSample& s) { return s.job.top_thread_demand_pct; }));
  add_if_any(job, series_of(samples, "busiest thread: on a CPU", [](const WatchSample& s) { return s.job.top_thread_pct; },
                            true));
  add_if_any(job, series_of(samples, "all threads: waiting for a CPU", [](const WatchSample& s) { return s.job.run_wait_pct; },
                            true));
  add_if_any(job, series_of(samples, "all threads: blocked on I/O", [](const WatchSample& s) { return s.job.io_blocked_pct; }));
  LineChart host = time_chart(report, "Host CPU (%)", "%");
  add_if_any(host, series_of(samples, "all cores", [](const WatchSample& s) { return s.host.cpu_pct; }));
  add_if_any(host, series_of(samples, "busiest core", [](const WatchSample& s) -> std::optional<double> {
               if (s.host.core_pct.empty()) return std::nullopt;
               return *std::max_element(s.host.core_pct.begin(), s.host.core_pct.end());
             }));
  add_if_any(host, series_of(samples, "iowait", [](const WatchSample& s) { return s.host.iowait_pct; }, true));
  LineChart reads = time_chart(report, "Disk reads (MB/s)", "MB/s");
  LineChart util = time_chart(report, "Disk utilization (iostat %util)", "%");
  add_if_any(reads, series_of(samples, "the job (/proc/PID/io)", [](const WatchSample& s) { return s.job.read_mbs; }, true));
  for (const auto& d : report.analysis.disks) {
    const std::string name = d.name;
    add_if_any(reads, series_of(samples, name, [name](const WatchSample& s) -> std::optional<double> {
                 const DiskWatch* disk = disk_in(s, name);
                 return disk ? disk->read_mbs : 0.0;
               }));
    add_if_any(util, series_of(samples, name, [name](const WatchSample& s) -> std::optional<double> {
                 const DiskWatch* disk = disk_in(s, name);
                 return disk ? disk->util_pct : 0.0;
               }));
  }
  return {job, host, reads, util};
}

void render_header(std::ostringstream& out, const WatchReport& report) {
  const WatchFinding* head = report.verdict.headline ? &*report.verdict.headline : nullptr;
  std::string what;
  for (const auto& word : report.command) what += (what.empty() ? "" : " ") + word;
  if (report.mode == "pid") what = "pid " + std::to_string(report.pid);
  out << "<header class=\"top s-" << h(head ? head->stage : "none") << "\"><h1>pipecheck watch: <code>" << h(what)
      << "</code></h1><p class=\"verdict\">" << h(head ? head->verdict : "no rule fired: no pattern stands out")
      << "</p><p class=\"meta\">" << h(report.host) << " &middot; " << h(report.started_utc) << " to "
      << h(report.finished_utc) << " &middot; " << report.analysis.samples << " samples every "
      << h(figure(report.interval_s, "s")) << " &middot; " << h(report.job_ending) << " &middot; stopped by "
      << h(report.stopped_by) << " &middot; pipecheck " << h(report.pipecheck_version) << "</p></header>\n";
}

void render_findings(std::ostringstream& out, const WatchReport& report) {
  out << "<section id=\"verdict\"><h2>Verdict</h2>\n<ul class=\"findings\">\n";
  bool first = true;
  for (const auto& f : report.verdict.findings) {
    out << "<li" << (first ? " class=\"first\"" : "") << "><b>" << h(f.verdict) << "</b> <span class=\"small\">("
        << h(f.rule) << ")</span><ul class=\"figs\">";
    for (const auto& line : f.figures) out << "<li>" << h(line) << "</li>";
    out << "</ul>";
    if (!f.advice.empty()) out << "<div class=\"advice\">Try: " << h(f.advice) << "</div>";
    out << "</li>\n";
    first = false;
  }
  if (report.verdict.findings.empty()) out << "<li>No rule fired.</li>";
  out << "</ul></section>\n";
}

void render_ceilings(std::ostringstream& out, const WatchReport& report) {
  out << "<section id=\"ceilings\"><h2>Observed against measured ceilings</h2>\n";
  if (report.analysis.comparisons.empty()) {
    out << "<p class=\"small\">"
        << (!report.baseline_wanted ? std::string("Not compared with measured ceilings (--no-baseline).")
            : report.baseline_source.empty()
                ? std::string("No results of an earlier pipecheck run (--baseline DIR, or the latest under results/).")
                : "The run " + h(report.baseline_source) + " measured no ceiling for what this job used.")
        << "</p></section>\n";
    return;
  }
  BarChart chart;
  chart.title = "Rates the job reached, against what pipecheck run measured";
  for (const auto& c : report.analysis.comparisons) {
    chart.bars.push_back({c.subject + " " + c.unit, c.observed, c.ceiling,
                          figure(c.observed, c.unit) + " = " + figure(c.percent) + "% of " + figure(c.ceiling, c.unit),
                          c.text, c.jobs && c.percent >= 85 ? "fail" : "pass"});
  }
  out << render_bar_chart(chart) << "<p class=\"small\">From " << h(report.baseline_source) << ".</p></section>\n";
}

void render_tables(std::ostringstream& out, const WatchReport& report) {
  out << "<section id=\"processes\"><h2>Processes and threads</h2>\n<table><tr><th>pid</th><th>parent</th><th>name</th>"
         "<th>CPU s</th><th>threads (max)</th><th>read</th></tr>\n";
  std::size_t shown = 0;
  for (const auto& p : report.processes) {
    if (shown++ == 20) break;
    out << "<tr><td class=\"num\">" << p.pid << "</td><td class=\"num\">" << p.ppid << "</td><td><code>" << h(p.comm)
        << "</code></td><td class=\"num\">" << h(figure(p.cpu_s)) << "</td><td class=\"num\">" << p.max_threads
        << "</td><td class=\"num\">" << (p.read_bytes ? h(bytes_label(*p.read_bytes)) : "-") << "</td></tr>\n";
  }
  out << "</table>\n<table><tr><th>thread</th><th>process</th><th>CPU s</th><th>blocked on I/O s</th></tr>\n";
  for (const auto& t : report.top_threads) {
    out << "<tr><td><code>" << h(t.comm) << ":" << t.tid << "</code></td><td class=\"num\">" << t.pid
        << "</td><td class=\"num\">" << h(figure(t.cpu_s)) << "</td><td class=\"num\">" << h(figure(t.blocked_s))
        << "</td></tr>\n";
  }
  out << "</table></section>\n";
}

void render_sources(std::ostringstream& out, const WatchReport& report) {
  out << "<section id=\"sources\"><h2>What was watched</h2>\n<p>GPUs: "
      << (report.gpus.empty() ? std::string("none sampled") : std::string()) << "</p><ul>";
  for (const auto& g : report.gpus) out << "<li><code>" << h(g) << "</code></li>";
  out << "</ul><p>Disks: " << h(report.devices_how) << "</p><ul>";
  for (const auto& [name, why] : report.job_devices) out << "<li><code>" << h(name) << "</code>: " << h(why) << "</li>";
  out << "</ul>";
  for (const auto& note : report.notes) out << "<p class=\"small\">Note: " << h(note) << "</p>";
  out << "<p class=\"small\">Sampler cost: " << h(figure(report.sampler_cpu_ms_per_sample, "ms"))
      << " of CPU per sample. Every sample is in <code>" << h(report.csv_file) << "</code>.</p>\n"
      << "<details><summary>The rules</summary><pre>" << h(render_rules_table()) << "</pre></details></section>\n";
}

}  // namespace

std::string render_watch_html(const WatchReport& report, const std::vector<WatchSample>& samples) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
         "content=\"width=device-width, initial-scale=1\"><title>pipecheck watch: "
      << h(report.host) << "</title><style>" << kPageStyle << svg_chart_style() << kChartStyle << "</style></head><body><main>\n";
  render_header(out, report);
  render_findings(out, report);
  render_ceilings(out, report);
  std::vector<LineChart> charts = gpu_charts(report, samples);
  for (auto& chart : host_charts(report, samples)) charts.push_back(std::move(chart));
  // A run too short for two rated samples has no line to draw: no empty card.
  const bool any_line = std::any_of(charts.begin(), charts.end(), [](const LineChart& chart) {
    return std::any_of(chart.series.begin(), chart.series.end(), [](const LineSeries& s) { return s.points.size() >= 2; });
  });
  if (any_line) {
    out << "<section id=\"series\"><h2>Over time</h2>\n";
    if (report.analysis.periodic.found) out << "<p class=\"small\">Shaded: the periodic idle episodes.</p>\n";
    for (const auto& chart : charts) {
      if (!chart.series.empty()) out << render_line_chart(chart);
    }
    out << "</section>\n";
  }
  render_tables(out, report);
  render_sources(out, report);
  out << "<footer>pipecheck watch &middot; watch schema " << report.version << "</footer>\n</main></body></html>\n";
  return out.str();
}

}  // namespace pipecheck
