// Terminal summary renderer (plain text; ANSI colour only when asked).
#include "reports/summary_table.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace pipecheck {

namespace {

constexpr int kStageWidth = 9;
constexpr int kWhatWidth = 30;
constexpr int kMeasuredWidth = 17;
constexpr int kRangeWidth = 16;
constexpr int kCeilingWidth = 17;

std::string fit(const std::string& text, int width) {
  if (static_cast<int>(text.size()) <= width) return text;
  return text.substr(0, width - 1) + "~";
}

std::string pad_right(const std::string& text, int width) {
  const std::string cut = fit(text, width);
  return cut + std::string(width - cut.size(), ' ');
}

std::string pad_left(const std::string& text, int width) {
  const std::string cut = fit(text, width);
  return std::string(width - cut.size(), ' ') + cut;
}

// Numbered notes under the table, one per distinct text.
class Notes {
 public:
  std::string mark(const std::string& text) {
    auto [it, added] = index_.emplace(text, static_cast<int>(order_.size()) + 1);
    if (added) order_.push_back(text);
    return "[" + std::to_string(it->second) + "]";
  }
  std::string render() const {
    std::string out;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      out += "  [" + std::to_string(i + 1) + "] " + order_[i] + "\n";
    }
    return out;
  }

 private:
  std::map<std::string, int> index_;
  std::vector<std::string> order_;
};

std::string ceiling_cell(const Measurement& m, Notes& notes) {
  if (m.ceiling.ceiling) {
    const Ceiling& c = *m.ceiling.ceiling;
    return format_figure(c.value) + " " + c.unit + " " + notes.mark(c.derivation + " (" + c.basis + ")");
  }
  const std::string why = m.ceiling.unknown_reason.empty() ? "unknown" : m.ceiling.unknown_reason;
  return "unknown " + notes.mark(why);
}

std::string row(const Measurement& m, Notes& notes) {
  const std::string measured = format_figure(m.stats.median) + " " + m.unit;
  const std::string range = m.stats.samples > 1
                                ? format_figure(m.stats.min) + " - " + format_figure(m.stats.max)
                                : "(1 sample)";
  const std::string percent =
      m.percent_of_ceiling ? format_figure(*m.percent_of_ceiling) + "%" : "-";
  return pad_right(m.stage, kStageWidth) + pad_right(m.what, kWhatWidth) +
         pad_left(measured, kMeasuredWidth) + "  " + pad_right(range, kRangeWidth) +
         pad_right(ceiling_cell(m, notes), kCeilingWidth) + pad_left(percent, 7) + "\n";
}

}  // namespace

std::string format_figure(double value) {
  char buffer[64];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string render_summary(const Report& report, bool color) {
  const std::string bold = color ? "\033[1m" : "";
  const std::string red = color ? "\033[31m" : "";
  const std::string yellow = color ? "\033[33m" : "";
  const std::string reset = color ? "\033[0m" : "";
  std::ostringstream out;
  out << bold << pad_right("stage", kStageWidth) << pad_right("what", kWhatWidth)
      << pad_left("measured (median)", kMeasuredWidth) << "  " << pad_right("min - max", kRangeWidth)
      << pad_right("ceiling", kCeilingWidth) << pad_left("% ceil", 7) << reset << "\n";
  Notes notes;
  int rows = 0;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      out << row(m, notes);
      ++rows;
    }
  }
  if (rows == 0) out << "(no measurements)\n";
  const std::string note_text = notes.render();
  if (!note_text.empty()) out << "\nCeilings:\n" << note_text;
  std::string problems;
  for (const auto& probe : report.probes) {
    if (probe.status == ProbeStatus::ok && probe.case_errors.empty()) continue;
    const std::string& tint = probe.status == ProbeStatus::failed ? red : yellow;
    problems += "  " + tint + pad_right(to_string(probe.status), 10) + reset + probe.stage + " (" +
                probe.probe + "): " + probe.reason + "\n";
    for (const auto& error : probe.case_errors) problems += "            case error: " + error + "\n";
  }
  if (!problems.empty()) out << "\nProbes without full results:\n" << problems;
  return out.str();
}

}  // namespace pipecheck
