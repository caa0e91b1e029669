// SVG chart drawing: fixed layout in a 960-wide viewBox (the page scales it), nice axis ticks,
// colours from the page's CSS classes so the charts follow the report's palette.
#include "render/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/figure_text.hpp"
#include "render/escape.hpp"
#include "render/svg_text.hpp"

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

constexpr double kFontPx = 12;          // svg text (svg_chart_style)
constexpr double kTitlePx = 14 * 1.1;   // the title: 14 px, bold is wider
constexpr double kLineHeight = 14;      // baseline to baseline of wrapped labels
constexpr double kTitleLineHeight = 18;

// The chart's title, wrapped to the chart's width; returns the height it takes.
double write_title(std::ostringstream& out, const std::string& title) {
  const auto lines = wrap_to_width(title, kWidth, kTitlePx);
  out << svg_text_lines(lines, {0, 18, kTitleLineHeight, "start", "chart-title"}) << "\n";
  return kTitleLineHeight * static_cast<double>(lines.size() - 1);
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

std::string render_bar_chart(const BarChart& chart) {
  // Labels right-aligned left of the bars, notes right of them; both wrap within their room.
  constexpr double kLabelRight = 262;
  constexpr double kLabelWidth = kLabelRight - 4;  // never past the chart's left edge
  constexpr double kBarLeft = 272;
  constexpr double kBarWidth = 400;
  constexpr double kNoteLeft = kBarLeft + kBarWidth + 12;
  constexpr double kNoteWidth = kWidth - kNoteLeft - 4;
  constexpr double kRow = 26;
  double scale_max = 0;
  for (const auto& bar : chart.bars) {
    scale_max = std::max({scale_max, bar.value, bar.ceiling.value_or(0.0)});
  }
  if (chart.scale_max && *chart.scale_max > 0) scale_max = std::min(scale_max, *chart.scale_max);
  if (!(scale_max > 0)) scale_max = 1;
  struct Layout {
    std::vector<std::string> label, note;
    double height;
  };
  std::vector<Layout> rows;
  double rows_height = 0;
  for (const auto& bar : chart.bars) {
    Layout row{wrap_to_width(bar.label, kLabelWidth, kFontPx), wrap_to_width(bar.note, kNoteWidth, kFontPx), kRow};
    const auto lines = std::max(row.label.size(), row.note.size());
    row.height = std::max(kRow, kLineHeight * static_cast<double>(lines) + 12);
    rows_height += row.height;
    rows.push_back(std::move(row));
  }
  std::ostringstream title;
  const double top = 30 + write_title(title, chart.title);
  const double height = top + rows_height + 8;
  std::ostringstream out;
  out << "<svg class=\"chart bars\" viewBox=\"0 0 " << kWidth << ' ' << num(height)
      << "\" width=\"" << kWidth << "\" height=\"" << num(height) << "\" role=\"img\" aria-label=\""
      << html_escape(chart.title) << "\">\n"
      << title.str();
  double y = top;
  for (std::size_t index = 0; index < chart.bars.size(); ++index) {
    const ChartBar& bar = chart.bars[index];
    const Layout& row = rows[index];
    const bool cut = bar.value > scale_max;
    const double value_width = std::min(std::max(0.0, bar.value) / scale_max, 1.0) * kBarWidth;
    std::string tooltip = bar.label + ": " + bar.note;
    if (!bar.tooltip.empty()) tooltip += "\n" + bar.tooltip;
    out << "<g class=\"bar-row\"><title>" << html_escape(tooltip) << "</title>";
    out << svg_text_lines(row.label, {kLabelRight, y + 13, kLineHeight, "end", "bar-label"});
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
    out << svg_text_lines(row.note, {kNoteLeft, y + 13, kLineHeight, "start", "bar-note"}) << "</g>\n";
    y += row.height;
  }
  out << "</svg>\n";
  return out.str();
}

std::string render_line_chart(const LineChart& chart) {
  constexpr double kLeft = 72;
  constexpr double kRight = 24;
  constexpr double kPlotHeight = 220;
  const double plot_width = kWidth - kLeft - kRight;
  std::ostringstream title;
  const double top = 34 + write_title(title, chart.title);

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
  auto py = [&](double y) { return top + kPlotHeight - std::max(0.0, y) / y_top * kPlotHeight; };

  // The legend flows left to right by each name's width, wrapping a name only when it is wider
  // than a whole row.
  struct LegendItem {
    std::vector<std::string> lines;
    double x = 0, y = 0;
  };
  std::vector<LegendItem> legend;
  for (const auto& series : chart.series) legend.push_back({wrap_to_width(series.name, kWidth - kLeft - 28, kFontPx)});
  if (!chart.bands.empty()) legend.push_back({wrap_to_width(chart.band_label, kWidth - kLeft - 28, kFontPx)});
  const double legend_top = top + kPlotHeight + 58;
  double legend_x = kLeft, row_y = legend_top, row_lines = 1;
  for (auto& item : legend) {
    double text_width = 0;
    for (const auto& line : item.lines) text_width = std::max(text_width, estimated_text_width(line, kFontPx));
    const double item_width = 24 + text_width + 18;
    if (legend_x > kLeft && legend_x + item_width > kWidth) {
      row_y += kLineHeight * row_lines + 4;
      legend_x = kLeft;
      row_lines = 1;
    }
    item.x = legend_x;
    item.y = row_y;
    legend_x += item_width;
    row_lines = std::max(row_lines, static_cast<double>(item.lines.size()));
  }
  const double height = row_y + kLineHeight * row_lines + 6;

  std::ostringstream out;
  out << "<svg class=\"chart lines\" viewBox=\"0 0 " << kWidth << ' ' << num(height) << "\" width=\""
      << kWidth << "\" height=\"" << num(height) << "\" role=\"img\" aria-label=\""
      << html_escape(chart.title) << "\">\n"
      << title.str();
  // Shaded bands first, under the grid and the lines.
  for (const auto& band : chart.bands) {
    const double x0 = std::clamp(px(band.x0), kLeft, kLeft + plot_width);
    const double x1 = std::clamp(px(band.x1), kLeft, kLeft + plot_width);
    out << "<rect class=\"band\" x=\"" << num(x0) << "\" y=\"" << num(top) << "\" width=\""
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
        << num(top + kPlotHeight) << "\" y2=\"" << num(top + kPlotHeight + 5) << "\"/>"
        << "<text class=\"tick\" x=\"" << num(px(x)) << "\" y=\"" << num(top + kPlotHeight + 18)
        << "\" text-anchor=\"middle\">" << html_escape(axis_text(x, chart.x_format)) << "</text>\n";
  }
  out << "<line class=\"axis\" x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + plot_width) << "\" y1=\""
      << num(top + kPlotHeight) << "\" y2=\"" << num(top + kPlotHeight) << "\"/>"
      << "<line class=\"axis\" x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft) << "\" y1=\"" << num(top)
      << "\" y2=\"" << num(top + kPlotHeight) << "\"/>\n"
      << "<text class=\"axis-label\" x=\"" << num(kLeft + plot_width / 2) << "\" y=\""
      << num(top + kPlotHeight + 36) << "\" text-anchor=\"middle\">" << html_escape(chart.x_label)
      << "</text>\n"
      << "<text class=\"axis-label\" x=\"14\" y=\"" << num(top + kPlotHeight / 2)
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << num(top + kPlotHeight / 2) << ")\">"
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
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const LegendItem& item = legend[i];
    const SvgTextBox text{item.x + 24, item.y, kLineHeight, "start", ""};
    if (i == chart.series.size()) {  // the bands' entry
      out << "<g class=\"legend\"><rect class=\"band\" x=\"" << num(item.x) << "\" y=\"" << num(item.y - 10)
          << "\" width=\"18\" height=\"10\"/>" << svg_text_lines(item.lines, text) << "</g>\n";
      continue;
    }
    const int tone = chart.series[i].tone >= 0 ? chart.series[i].tone : static_cast<int>(i);
    out << "<g class=\"legend s" << (tone % kPalette) << (chart.series[i].dashed ? " dashed" : "")
        << "\"><line x1=\"" << num(item.x) << "\" x2=\"" << num(item.x + 18) << "\" y1=\"" << num(item.y - 4)
        << "\" y2=\"" << num(item.y - 4) << "\"/>" << svg_text_lines(item.lines, text) << "</g>\n";
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace pipecheck
