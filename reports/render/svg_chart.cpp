// SVG chart drawing: fixed layout in a 960-wide viewBox (the page scales it), nice axis ticks,
// colours from the page's CSS classes so the charts follow the report's palette.
#include "reports/render/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "reports/render/escape.hpp"

namespace pipecheck {

const char* svg_chart_style() {
  return R"(svg.chart { width:100%; height:auto; display:block; margin:6px 0 10px; }
svg text { font-family:inherit; font-size:12px; fill:var(--ink); }
svg .chart-title { font-size:14px; font-weight:600; }
svg .bar-note, svg .tick, svg .axis-label { fill:var(--muted); }
svg .ceiling-track { fill:#e6e9ef; } svg .ceiling-mark { stroke:#5d6576; stroke-width:2; }
svg .bar-break { stroke:#fff; stroke-width:3; }
svg .grid { stroke:#eceef2; } svg .axis, svg .tick-mark { stroke:#9aa1ad; }
svg .band { fill:#f2a93b; fill-opacity:.22; }
svg .series polyline { fill:none; stroke-width:2; } svg .series.dashed polyline { stroke-dasharray:6 4; stroke-width:1.5; }
svg .legend line { stroke-width:3; } svg .legend.dashed line { stroke-dasharray:5 3; stroke-width:2; }
svg .s0 polyline, svg .s0 line { stroke:#2f6fde; } svg .s0 circle { fill:#2f6fde; }
svg .s1 polyline, svg .s1 line { stroke:#e0662c; } svg .s1 circle { fill:#e0662c; }
svg .s2 polyline, svg .s2 line { stroke:#23a267; } svg .s2 circle { fill:#23a267; }
svg .s3 polyline, svg .s3 line { stroke:#9b4fd1; } svg .s3 circle { fill:#9b4fd1; }
svg .s4 polyline, svg .s4 line { stroke:#c23b6b; } svg .s4 circle { fill:#c23b6b; }
svg .s5 polyline, svg .s5 line { stroke:#1c9bb0; } svg .s5 circle { fill:#1c9bb0; }
svg .s6 polyline, svg .s6 line { stroke:#8a7d18; } svg .s6 circle { fill:#8a7d18; }
svg .s7 polyline, svg .s7 line { stroke:#55606f; } svg .s7 circle { fill:#55606f; }
)";
}

namespace {

constexpr double kWidth = 960;
constexpr int kPalette = 8;  // .s0 ... .s7 in the page's CSS

std::string num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

// Cuts a label to `limit` characters (UTF-8 aware enough not to split a multi-byte character).
std::string shorten(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit - 1;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "\xE2\x80\xA6";  // ellipsis
}

std::string axis_text(double value, AxisFormat format) {
  char buffer[32];
  if (std::fabs(value) < 1e-9) value = 0;  // no "-0" from accumulated steps
  switch (format) {
    case AxisFormat::bytes: return bytes_label(value);
    case AxisFormat::seconds:
      std::snprintf(buffer, sizeof buffer, "%g s", value);
      return buffer;
    case AxisFormat::number:
      break;
  }
  if (std::fabs(value - std::round(value)) < 1e-9 && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
  }
  return buffer;
}

// A step of 1, 2, 2.5 or 5 x 10^n giving about `count` intervals up to `span`.
double nice_step(double span, int count) {
  if (span <= 0) return 1;
  const double raw = span / count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalized = raw / magnitude;
  const double factor = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 2.5 ? 2.5 : normalized <= 5 ? 5 : 10;
  return factor * magnitude;
}

}  // namespace

std::string bytes_label(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  char buffer[32];
  if (std::fabs(bytes - std::round(bytes)) < 1e-9) {
    std::snprintf(buffer, sizeof buffer, "%.0f %s", bytes, kUnits[unit]);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g %s", bytes, kUnits[unit]);
  }
  return buffer;
}

std::string render_bar_chart(const BarChart& chart) {
  constexpr double kLabelRight = 262;
  constexpr double kBarLeft = 272;
  constexpr double kBarWidth = 400;
  constexpr double kRow = 26;
  constexpr double kTop = 30;
  double scale_max = 0;
  for (const auto& bar : chart.bars) {
    scale_max = std::max({scale_max, bar.value, bar.ceiling.value_or(0.0)});
  }
  if (chart.scale_max && *chart.scale_max > 0) scale_max = std::min(scale_max, *chart.scale_max);
  if (!(scale_max > 0)) scale_max = 1;
  const double height = kTop + kRow * static_cast<double>(chart.bars.size()) + 8;
  std::ostringstream out;
  out << "<svg class=\"chart bars\" viewBox=\"0 0 " << kWidth << ' ' << num(height)
      << "\" width=\"" << kWidth << "\" height=\"" << num(height) << "\" role=\"img\" aria-label=\""
      << html_escape(chart.title) << "\">\n"
      << "<text class=\"chart-title\" x=\"0\" y=\"18\">" << html_escape(chart.title) << "</text>\n";
  double y = kTop;
  for (const auto& bar : chart.bars) {
    const bool cut = bar.value > scale_max;
    const double value_width = std::min(std::max(0.0, bar.value) / scale_max, 1.0) * kBarWidth;
    std::string tooltip = bar.label + ": " + bar.note;
    if (!bar.tooltip.empty()) tooltip += "\n" + bar.tooltip;
    out << "<g class=\"bar-row\"><title>" << html_escape(tooltip) << "</title>";
    out << "<text class=\"bar-label\" x=\"" << num(kLabelRight) << "\" y=\"" << num(y + 13)
        << "\" text-anchor=\"end\">" << html_escape(shorten(bar.label, 40)) << "</text>";
    if (bar.ceiling && *bar.ceiling > 0) {
      const double ceiling_width = std::min(*bar.ceiling / scale_max, 1.0) * kBarWidth;
      out << "<rect class=\"ceiling-track\" x=\"" << num(kBarLeft) << "\" y=\"" << num(y + 2)
          << "\" width=\"" << num(ceiling_width) << "\" height=\"16\" rx=\"2\"/>";
      out << "<line class=\"ceiling-mark\" x1=\"" << num(kBarLeft + ceiling_width) << "\" x2=\""
          << num(kBarLeft + ceiling_width) << "\" y1=\"" << num(y) << "\" y2=\"" << num(y + 20) << "\"/>";
    }
    out << "<rect class=\"bar tone-" << html_escape(bar.tone.empty() ? "info" : bar.tone) << "\" x=\""
        << num(kBarLeft) << "\" y=\"" << num(y + 4) << "\" width=\"" << num(value_width)
        << "\" height=\"12\" rx=\"2\"/>";
    if (cut) {
      const double x = kBarLeft + kBarWidth - 14;
      out << "<path class=\"bar-break\" d=\"M" << num(x) << ' ' << num(y + 19) << " l6 -18 M" << num(x + 5) << ' '
          << num(y + 19) << " l6 -18\"/>";
    }
    out << "<text class=\"bar-note\" x=\"" << num(kBarLeft + kBarWidth + 12) << "\" y=\"" << num(y + 13)
        << "\">" << html_escape(shorten(bar.note, 44)) << "</text></g>\n";
    y += kRow;
  }
  out << "</svg>\n";
  return out.str();
}

std::string render_line_chart(const LineChart& chart) {
  constexpr double kLeft = 72;
  constexpr double kRight = 24;
  constexpr double kTop = 34;
  constexpr double kPlotHeight = 220;
  constexpr double kLegendItem = 180;
  const double plot_width = kWidth - kLeft - kRight;

  auto x_of = [&](double x) { return chart.log2_x ? std::log2(std::max(x, 1e-300)) : x; };
  double x_min = INFINITY, x_max = -INFINITY, y_max = 0;
  for (const auto& series : chart.series) {
    for (const auto& p : series.points) {
      if (chart.log2_x && p.x <= 0) continue;
      x_min = std::min(x_min, x_of(p.x));
      x_max = std::max(x_max, x_of(p.x));
      y_max = std::max(y_max, p.y);
    }
  }
  if (chart.x_min) x_min = x_of(*chart.x_min);
  if (chart.x_max) x_max = x_of(*chart.x_max);
  if (!std::isfinite(x_min)) { x_min = 0; x_max = 1; }
  if (x_max - x_min < 1e-12) { x_min -= 1; x_max += 1; }
  const double y_step = nice_step(y_max > 0 ? y_max : 1, 5);
  const double y_top = std::max(y_step, std::ceil(y_max / y_step - 1e-9) * y_step);

  auto px = [&](double x) { return kLeft + (x_of(x) - x_min) / (x_max - x_min) * plot_width; };
  auto py = [&](double y) { return kTop + kPlotHeight - std::max(0.0, y) / y_top * kPlotHeight; };

  int legend_items = static_cast<int>(chart.series.size()) + (chart.bands.empty() ? 0 : 1);
  const int per_row = static_cast<int>((kWidth - kLeft) / kLegendItem);
  const int legend_rows = (legend_items + per_row - 1) / per_row;
  const double legend_top = kTop + kPlotHeight + 58;
  const double height = legend_top + 18.0 * legend_rows + 6;

  std::ostringstream out;
  out << "<svg class=\"chart lines\" viewBox=\"0 0 " << kWidth << ' ' << num(height) << "\" width=\""
      << kWidth << "\" height=\"" << num(height) << "\" role=\"img\" aria-label=\""
      << html_escape(chart.title) << "\">\n"
      << "<text class=\"chart-title\" x=\"0\" y=\"18\">" << html_escape(chart.title) << "</text>\n";
  // Shaded bands first, under the grid and the lines.
  for (const auto& band : chart.bands) {
    const double x0 = std::clamp(px(band.x0), kLeft, kLeft + plot_width);
    const double x1 = std::clamp(px(band.x1), kLeft, kLeft + plot_width);
    out << "<rect class=\"band\" x=\"" << num(x0) << "\" y=\"" << num(kTop) << "\" width=\""
        << num(std::max(1.5, x1 - x0)) << "\" height=\"" << num(kPlotHeight) << "\"><title>"
        << html_escape(chart.band_label) << ": " << html_escape(axis_text(band.x0, chart.x_format))
        << " - " << html_escape(axis_text(band.x1, chart.x_format)) << "</title></rect>\n";
  }
  // Y grid and labels.
  for (double y = 0; y <= y_top + y_step * 1e-6; y += y_step) {
    out << "<line class=\"grid\" x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + plot_width)
        << "\" y1=\"" << num(py(y)) << "\" y2=\"" << num(py(y)) << "\"/>"
        << "<text class=\"tick\" x=\"" << num(kLeft - 6) << "\" y=\"" << num(py(y) + 4)
        << "\" text-anchor=\"end\">" << html_escape(axis_text(y, AxisFormat::number)) << "</text>\n";
  }
  // X ticks: powers of two on a log axis, nice steps on a linear one.
  // X ticks: the measured x values when they are few (sizes and thread counts as swept), else
  // powers of two on a log axis and nice steps on a linear one.
  std::set<double> measured;
  for (const auto& series : chart.series) {
    for (const auto& p : series.points) {
      if (!chart.log2_x || p.x > 0) measured.insert(p.x);
    }
  }
  std::vector<double> x_ticks;
  if (measured.size() <= (chart.log2_x ? 12u : 6u) && !chart.x_min && !chart.x_max) {
    x_ticks.assign(measured.begin(), measured.end());
  } else if (chart.log2_x) {
    const int first = static_cast<int>(std::ceil(x_min - 1e-9));
    const int last = static_cast<int>(std::floor(x_max + 1e-9));
    const int stride = std::max(1, (last - first) / 10 + 1);
    for (int e = first; e <= last; e += stride) x_ticks.push_back(std::pow(2.0, e));
  } else {
    const double step = nice_step(x_max - x_min, 8);
    for (double x = std::ceil(x_min / step - 1e-9) * step; x <= x_max + step * 1e-6; x += step) {
      x_ticks.push_back(x);
    }
  }
  for (double x : x_ticks) {
    out << "<line class=\"tick-mark\" x1=\"" << num(px(x)) << "\" x2=\"" << num(px(x)) << "\" y1=\""
        << num(kTop + kPlotHeight) << "\" y2=\"" << num(kTop + kPlotHeight + 5) << "\"/>"
        << "<text class=\"tick\" x=\"" << num(px(x)) << "\" y=\"" << num(kTop + kPlotHeight + 18)
        << "\" text-anchor=\"middle\">" << html_escape(axis_text(x, chart.x_format)) << "</text>\n";
  }
  out << "<line class=\"axis\" x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + plot_width) << "\" y1=\""
      << num(kTop + kPlotHeight) << "\" y2=\"" << num(kTop + kPlotHeight) << "\"/>"
      << "<line class=\"axis\" x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft) << "\" y1=\"" << num(kTop)
      << "\" y2=\"" << num(kTop + kPlotHeight) << "\"/>\n"
      << "<text class=\"axis-label\" x=\"" << num(kLeft + plot_width / 2) << "\" y=\""
      << num(kTop + kPlotHeight + 36) << "\" text-anchor=\"middle\">" << html_escape(chart.x_label)
      << "</text>\n"
      << "<text class=\"axis-label\" x=\"14\" y=\"" << num(kTop + kPlotHeight / 2)
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << num(kTop + kPlotHeight / 2) << ")\">"
      << html_escape(chart.y_label) << "</text>\n";
  // Lines and their points.
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const LineSeries& series = chart.series[i];
    std::vector<LinePoint> points;
    for (const auto& p : series.points) {
      if (!chart.log2_x || p.x > 0) points.push_back(p);
    }
    std::stable_sort(points.begin(), points.end(), [](const LinePoint& a, const LinePoint& b) { return a.x < b.x; });
    std::string tone = "s";  // appended: GCC 12 warns falsely (-Wrestrict) on "s" + to_string(..)
    tone += std::to_string((series.tone >= 0 ? series.tone : static_cast<int>(i)) % kPalette);
    out << "<g class=\"series " << tone << (series.dashed ? " dashed" : "") << "\"><title>"
        << html_escape(series.name) << "</title><polyline points=\"";
    for (std::size_t k = 0; k < points.size(); ++k) {
      out << (k ? " " : "") << num(px(points[k].x)) << ',' << num(py(points[k].y));
    }
    out << "\"/>";
    // Markers only where they stay readable; telemetry has too many points for them.
    if (points.size() <= 40 && !series.dashed) {
      for (const auto& p : points) {
        const std::string tip = p.tooltip.empty()
                                    ? series.name + ": " + axis_text(p.x, chart.x_format) + ", " +
                                          axis_text(p.y, AxisFormat::number)
                                    : p.tooltip;
        out << "<circle cx=\"" << num(px(p.x)) << "\" cy=\"" << num(py(p.y)) << "\" r=\"3.5\"><title>"
            << html_escape(tip) << "</title></circle>";
      }
    }
    out << "</g>\n";
  }
  // Legend.
  int item = 0;
  auto legend_position = [&](int index, double& x, double& y) {
    x = kLeft + (index % per_row) * kLegendItem;
    y = legend_top + 18.0 * (index / per_row);
  };
  for (std::size_t i = 0; i < chart.series.size(); ++i, ++item) {
    double x = 0, y = 0;
    legend_position(item, x, y);
    const int tone = chart.series[i].tone >= 0 ? chart.series[i].tone : static_cast<int>(i);
    out << "<g class=\"legend s" << (tone % kPalette) << (chart.series[i].dashed ? " dashed" : "")
        << "\"><line x1=\"" << num(x) << "\" x2=\"" << num(x + 18) << "\" y1=\"" << num(y - 4)
        << "\" y2=\"" << num(y - 4) << "\"/><text x=\"" << num(x + 24) << "\" y=\"" << num(y) << "\">"
        << html_escape(shorten(chart.series[i].name, 26)) << "</text></g>\n";
  }
  if (!chart.bands.empty()) {
    double x = 0, y = 0;
    legend_position(item, x, y);
    out << "<g class=\"legend\"><rect class=\"band\" x=\"" << num(x) << "\" y=\"" << num(y - 10)
        << "\" width=\"18\" height=\"10\"/><text x=\"" << num(x + 24) << "\" y=\"" << num(y) << "\">"
        << html_escape(chart.band_label) << "</text></g>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace pipecheck
