// SVG text layout by estimated rendered width (see svg_text.hpp).
#include "render/svg_text.hpp"

#include <cstdio>

#include "render/escape.hpp"

namespace pipecheck {

namespace {

// Advance widths in em of DejaVu Sans (2048 units an em), rounded up; printable ASCII from ' '.
constexpr double kAsciiWidths[95] = {
    0.318, 0.401, 0.460, 0.838, 0.636, 0.950, 0.780, 0.275, 0.390, 0.390, 0.500, 0.838, 0.318, 0.361, 0.318, 0.337,
    0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531,
    1.000, 0.684, 0.686, 0.698, 0.770, 0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787,
    0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.390, 0.337, 0.390, 0.838, 0.500,
    0.500, 0.613, 0.635, 0.550, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634, 0.612,
    0.635, 0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838};
constexpr double kOtherWidth = 1.0;  // anything else: a full em, the widest a Latin glyph gets
constexpr double kSafety = 1.05;     // browsers round and kern; err long

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

double char_width(std::string_view text, std::size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  if (c >= 0x20 && c < 0x7f) return kAsciiWidths[c - 0x20];
  return kOtherWidth;
}

std::string num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

}  // namespace

double estimated_text_width(std::string_view text, double font_px) {
  double em = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_continuation(text[i])) em += char_width(text, i);
  }
  return em * font_px * kSafety;
}

std::vector<std::string> wrap_to_width(std::string_view text, double max_width, double font_px) {
  std::vector<std::string> lines;
  std::string line;
  auto fits = [&](const std::string& candidate) { return estimated_text_width(candidate, font_px) <= max_width; };
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && text[at] == ' ') ++at;
    std::size_t end = at;
    while (end < text.size() && text[end] != ' ') ++end;
    if (end == at) break;
    std::string_view word = text.substr(at, end - at);
    at = end;
    const std::string joined = line.empty() ? std::string(word) : line + " " + std::string(word);
    if (fits(joined)) {
      line = joined;
      continue;
    }
    if (!line.empty()) {
      lines.push_back(line);
      line.clear();
    }
    // A word wider than a line: as many whole characters as fit, then the rest.
    while (!fits(std::string(word))) {
      std::size_t cut = 0;
      std::size_t next = 0;
      do {
        next = cut + 1;
        while (next < word.size() && is_continuation(word[next])) ++next;
        if (!fits(std::string(word.substr(0, next))) && cut > 0) break;
        cut = next;
      } while (cut < word.size());
      lines.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
    }
    line = std::string(word);
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::string svg_text_lines(const std::vector<std::string>& lines, const SvgTextBox& box) {
  std::string out = "<text";
  if (!box.css_class.empty()) out += " class=\"" + html_escape(box.css_class) + "\"";
  out += " x=\"" + num(box.x) + "\" y=\"" + num(box.y) + "\"";
  if (std::string_view(box.anchor) != "start") out += std::string(" text-anchor=\"") + box.anchor + "\"";
  out += ">";
  if (lines.size() == 1) return out + html_escape(lines[0]) + "</text>";
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + string chains.
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += "<tspan x=\"";
    out += num(box.x);
    out += '"';
    if (i > 0) {
      out += " dy=\"";
      out += num(box.line_height);
      out += '"';
    }
    out += '>';
    out += html_escape(lines[i]);
    out += "</tspan>";
  }
  out += "</text>";
  return out;
}

}  // namespace pipecheck
