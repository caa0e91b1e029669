// Inline SVG charts for report.html: horizontal bars of measured vs ceiling, and line charts
// (scaling curves, size sweeps, telemetry over time with shaded bands). No scripts, no network.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

// The CSS of the classes these charts draw with (axes, grid, bands, ceiling tracks, the series
// palette s0..s7), for a page's <style>. Each page adds its own verdict tones: `svg .bar` and
// `svg .tone-<name>` fills, after this block so a tone wins over the plain bar colour.
const char* svg_chart_style();

struct ChartBar {
  std::string label;              // "memcpy, 2 threads"
  double value = 0;
  std::optional<double> ceiling;  // drawn as the track behind the bar
  std::string note;               // visible beside the bar: "52.8 GB/s, 83.8% of 63.0 GB/s"
  std::string tooltip;            // SVG <title>: the ceiling's derivation
  std::string tone;               // CSS class suffix: a verdict name ("pass", "fail", ...)
};

struct BarChart {
  std::string title;
  std::vector<ChartBar> bars;
  // Where the axis ends; longer bars are cut with a break mark (one huge figure would otherwise
  // flatten the others). Empty: the largest value or ceiling.
  std::optional<double> scale_max;
};

struct LinePoint {
  double x = 0;
  double y = 0;
  std::string tooltip;  // empty: "x, y" in the axis formats
};

struct LineSeries {
  std::string name;
  std::vector<LinePoint> points;
  bool dashed = false;  // a reference line (a limit, perfect scaling)
  int tone = -1;        // palette colour; -1: by position (a reference line takes its curve's)
};

// An x range shaded behind the lines (a throttle period).
struct ChartBand {
  double x0 = 0;
  double x1 = 0;
};

enum class AxisFormat { number, bytes, seconds };

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  AxisFormat x_format = AxisFormat::number;
  bool log2_x = false;  // sizes and thread counts double from point to point
  std::vector<LineSeries> series;
  std::vector<ChartBand> bands;
  std::string band_label;  // legend text of the bands ("throttled")
  // A fixed x range (charts of one run over time share it); empty: the data's.
  std::optional<double> x_min;
  std::optional<double> x_max;
};

// Each returns one <svg> element; every text from the records is escaped.
std::string render_bar_chart(const BarChart& chart);
std::string render_line_chart(const LineChart& chart);

}  // namespace pipecheck
