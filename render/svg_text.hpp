// Text in the report's SVG charts laid out by rendered width, not by character count: a label
// that does not fit its room wraps onto more lines (never cut, never past the chart's edge).
// The width is estimated from the advance widths of a wide sans-serif (DejaVu Sans, wider than
// the Arial, Helvetica, Roboto or Segoe UI a browser may pick), so the estimate errs long and the
// text stays inside its room whatever font the page gets; scripts/check-html.sh measures the
// real boxes in Chromium.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipecheck {

// Estimated width of `text` in a sans-serif of `font_px` pixels (SVG user units).
double estimated_text_width(std::string_view text, double font_px);

// `text` in lines no wider than `max_width` at `font_px`: broken at spaces, a word wider than a
// line broken between characters. Every character is kept. At least one line.
std::vector<std::string> wrap_to_width(std::string_view text, double max_width, double font_px);

struct SvgTextBox {
  double x = 0;             // anchor x
  double y = 0;             // baseline of the first line
  double line_height = 14;  // baseline to baseline
  const char* anchor = "start";  // start, middle, end
  std::string css_class;    // e.g. "bar-label"
};

// One <text> element with a <tspan> a line (escaped); one line gives a plain <text>.
std::string svg_text_lines(const std::vector<std::string>& lines, const SvgTextBox& box);

}  // namespace pipecheck
