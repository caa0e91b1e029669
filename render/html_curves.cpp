// report.html's curves: thread scaling and transfer-size sweeps as line charts. A curve is
// named as its measurements are named elsewhere in the report (the words of their "what" that
// all its points share), never by internal keys.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "render/html_parts.hpp"
#include "render/render_support.hpp"
#include "render/svg_chart.hpp"

namespace pipecheck::html {

namespace {

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

// The params that tell one curve from another, as a grouping key ("0, h2d, pinned, local"); a
// fixed list, in this order, so other params (figures, flags) never split a curve. Shown nowhere.
std::string series_key(const Measurement& m, const std::set<std::string>& leave_out) {
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

std::vector<std::string> split(const std::string& text, const std::string& separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + separator.size();
  }
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : separator) + part;
  return text;
}

// A curve's name for its legend: the comma-separated parts of its measurements' names that every
// point shares ("full decode, baseline, 2 threads" and "..., 4 threads" -> "full decode, baseline");
// without a shared part, the words they all start with ("seq read 1 MiB QD32 x4 threads" ->
// "seq read 1 MiB QD32").
std::string display_name(const std::vector<std::string>& whats) {
  if (whats.empty()) return "";
  std::vector<std::string> shared;
  for (const auto& part : split(whats.front(), ", ")) {
    const bool everywhere = std::all_of(whats.begin(), whats.end(), [&](const std::string& what) {
      const auto parts = split(what, ", ");
      return std::find(parts.begin(), parts.end(), part) != parts.end();
    });
    if (everywhere && std::find(shared.begin(), shared.end(), part) == shared.end()) shared.push_back(part);
  }
  if (!shared.empty()) return join(shared, ", ");
  std::vector<std::string> prefix = split(whats.front(), " ");
  for (const auto& what : whats) {
    const auto words = split(what, " ");
    std::size_t same = 0;
    while (same < prefix.size() && same < words.size() && prefix[same] == words[same]) ++same;
    prefix.resize(same);
  }
  std::string name = join(prefix, " ");
  while (!name.empty() && (name.back() == ',' || name.back() == ' ')) name.pop_back();
  return name.empty() ? whats.front() : name;
}

// ---- curves -----------------------------------------------------------------------------------

struct CurveSeries {
  std::vector<LinePoint> points;
  std::vector<std::string> whats;  // the display names of its measurements
};

struct CurveGroup {
  std::string stage;
  std::string unit;
  std::map<std::string, CurveSeries> series;  // grouping key -> points
};

// The curves of a group with their legend names, each name once in the chart.
std::vector<std::pair<std::string, const std::vector<LinePoint>*>> named_series(const CurveGroup& group) {
  std::vector<std::pair<std::string, const std::vector<LinePoint>*>> named;
  std::map<std::string, int> uses;
  for (const auto& [key, series] : group.series) {
    std::string name = display_name(series.whats);
    if (++uses[name] > 1) name += " (" + std::to_string(uses[name]) + ")";
    named.emplace_back(name, &series.points);
  }
  return named;
}

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
      CurveSeries& series = group->series[series_key(m, leave_out)];
      series.points.push_back({x, m.stats.median, m.what + ": " + measured_text(m)});
      series.whats.push_back(m.what);
    }
  }
  // A curve needs two x values; groups with none left are dropped.
  for (auto& group : groups) {
    for (auto it = group.series.begin(); it != group.series.end();) {
      std::set<double> xs;
      for (const auto& p : it->second.points) xs.insert(p.x);
      it = xs.size() < 2 ? group.series.erase(it) : std::next(it);
    }
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(), [](const CurveGroup& g) { return g.series.empty(); }),
               groups.end());
  return groups;
}

}  // namespace

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
    const auto named = named_series(group);
    int tone = 0;
    for (const auto& [name, points] : named) chart.series.push_back({name, *points, false, tone++});
    // Perfect scaling from each curve's 1-thread point, where few curves keep the chart readable.
    if (named.size() <= 2) {
      tone = 0;
      for (const auto& [name, points] : named) {
        const int curve_tone = tone++;
        auto one = std::find_if(points->begin(), points->end(), [](const LinePoint& p) { return p.x == 1; });
        if (one == points->end()) continue;
        LineSeries ideal{name + ": perfect scaling", {}, true, curve_tone};
        for (const auto& p : *points) ideal.points.push_back({p.x, one->y * p.x, ""});
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
    for (const auto& [name, points] : named_series(group)) chart.series.push_back({name, *points, false, -1});
    out << render_line_chart(chart);
  }
  return out.str();
}

}  // namespace pipecheck::html
