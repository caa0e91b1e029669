// report.html's stress section: a stress run's telemetry.csv as charts over time with throttle
// periods shaded, then a summary per GPU and, when the host CPU was burned or sampled, one for it.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "render/html_parts.hpp"
#include "render/svg_chart.hpp"

namespace pipecheck::html {

namespace {

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

// One row a GPU: the worst of each reading over the run.
void render_gpu_summary(std::ostringstream& out, const TelemetryLog& log) {
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
  if (order.empty()) return;  // a CPU-only burn: no GPU table at all
  out << "<h3>GPUs</h3><table><tr><th>GPU</th><th>samples</th><th>max temp</th><th>max HBM temp</th><th>max power / limit</th>"
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

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The host CPU over the run: utilisation, temperature, package power and, for a CPU burn, its
// throughput and wrong results.
void render_cpu_summary(std::ostringstream& out, const TelemetryLog& log) {
  std::vector<double> util, tflops;
  std::optional<double> max_util, max_temp, max_power, wrong;
  int samples = 0;
  for (const auto& s : log.samples) {
    if (s.source != "host") continue;
    ++samples;
    if (s.cpu_util_pct) util.push_back(*s.cpu_util_pct);
    keep_max(max_util, s.cpu_util_pct);
    keep_max(max_temp, s.cpu_temp_c);
    keep_max(max_power, s.cpu_package_w);
    keep_max(wrong, s.wrong_results);
    if (s.tflops) tflops.push_back(*s.tflops);
  }
  if (samples == 0) return;
  // Texts, not optionals: GCC 12 warns (falsely) of uninitialized optionals built here.
  const std::string median_util = util.empty() ? "-" : fmt(median_of(util), "%.0f") + "%";
  // A CPU burns in GFLOP/s, not TFLOP/s.
  const std::string median_gflops = tflops.empty() ? "-" : fmt(median_of(tflops) * 1000, "%.1f");
  const bool bad = wrong.value_or(0) > 0;
  out << "<h3>Host CPU</h3><table><tr><th>samples</th><th>CPU util median / max</th><th>max temp</th>"
         "<th>max package power</th><th>burn GFLOP/s median</th><th>wrong results</th></tr>\n"
      << "<tr" << (bad ? " class=\"v-fail\"" : "") << "><td class=\"num\">" << samples << "</td><td class=\"num\">"
      << h(median_util) << " / " << h(opt(max_util, "%.0f", "%")) << "</td><td class=\"num\">"
      << h(opt(max_temp, "%.0f", " \xC2\xB0""C")) << "</td><td class=\"num\">" << h(opt(max_power, "%.0f", " W"))
      << "</td><td class=\"num\">" << h(median_gflops) << "</td><td class=\"num\">"
      << h(opt(wrong, "%.0f")) << "</td></tr>\n</table>\n";
}

}  // namespace

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
        telemetry_chart(log, bands, "GPU burn throughput (TFLOP/s)", "TFLOP/s", {{&TelemetrySample::tflops, ""}}, false),
        telemetry_chart(log, bands, "Host CPU", "% / \xC2\xB0""C / W",
                         {{&TelemetrySample::cpu_util_pct, " util %"}, {&TelemetrySample::cpu_temp_c, " \xC2\xB0""C"},
                          {&TelemetrySample::cpu_package_w, " package W"}}, true),
        telemetry_chart(log, bands, "CPU burn throughput (TFLOP/s)", "TFLOP/s", {{&TelemetrySample::tflops, " burn"}},
                         true),
    };
    for (const auto& chart : charts) {
      if (!chart.series.empty()) out << render_line_chart(chart);
    }
    render_gpu_summary(out, log);
    render_cpu_summary(out, log);
  }
  if (!log.dropped.empty()) {
    out << "<p class=\"small\">" << log.dropped.size() << " row(s) of telemetry.csv left out: ";
    for (std::size_t i = 0; i < log.dropped.size(); ++i) out << (i ? "; " : "") << h(log.dropped[i]);
    out << "</p>\n";
  }
  out << "</section>\n";
}


}  // namespace pipecheck::html
