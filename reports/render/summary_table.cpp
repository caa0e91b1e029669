// Terminal summary renderer (plain text; ANSI colour only when asked). Column widths add up to
// 99 so a row fits a 100-column terminal; long notes and findings wrap at 100.
#include "reports/render/summary_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "reports/render/conditions_text.hpp"
#include "reports/render/render_support.hpp"

namespace pipecheck {

namespace {

// Each width includes the one space that separates the column from its neighbour.
constexpr int kStageWidth = 8;
constexpr int kWhatWidth = 37;
constexpr int kMeasuredWidth = 15;
constexpr int kSpreadWidth = 7;
constexpr int kCeilingWidth = 14;
constexpr int kPercentWidth = 7;
constexpr std::size_t kLineWidth = 100;

std::string fit(const std::string& text, int width) {
  if (static_cast<int>(text.size()) <= width) return text;
  return text.substr(0, width - 1) + "~";
}

// Padded to `width` with at least one space kept, so neighbouring columns never touch.
std::string pad_right(const std::string& text, int width) {
  const std::string cut = fit(text, width - 1);
  return cut + std::string(width - cut.size(), ' ');
}

std::string pad_left(const std::string& text, int width) {
  const std::string cut = fit(text, width - 1);
  return std::string(width - cut.size(), ' ') + cut;
}

// The repetitions' spread around the median, in % of it: "2.1%" (the widest side); the HTML and
// Markdown reports carry min and max themselves.
std::string spread_cell(const Statistics& stats) {
  if (stats.samples <= 1 || stats.median == 0) return "-";
  const double spread = std::max(stats.max - stats.median, stats.median - stats.min) / std::fabs(stats.median) * 100;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", spread);
  return text;
}

// Words of `text` in lines of at most kLineWidth, the first after `first`, the rest after `rest`.
std::string wrap(const std::string& text, const std::string& first, const std::string& rest) {
  std::istringstream words(text);
  std::string word;
  std::string out;
  std::string line = first;
  std::size_t visible = first.size();
  bool line_has_word = false;
  while (words >> word) {
    if (line_has_word && visible + 1 + word.size() > kLineWidth) {
      out += line + "\n";
      line = rest;
      visible = rest.size();
      line_has_word = false;
    }
    if (line_has_word) {
      line += ' ';
      ++visible;
    }
    line += word;
    visible += word.size();
    line_has_word = true;
  }
  return out + line + "\n";
}

struct Palette {
  std::string bold, red, yellow, green, reset;
  explicit Palette(bool color)
      : bold(color ? "\033[1m" : ""), red(color ? "\033[31m" : ""), yellow(color ? "\033[33m" : ""),
        green(color ? "\033[32m" : ""), reset(color ? "\033[0m" : "") {}
  const std::string& of(Verdict v) const {
    static const std::string none;
    if (is_failure(v)) return red;
    return v == Verdict::warn || v == Verdict::inconclusive ? yellow : v == Verdict::pass ? green : none;
  }
};

// Invalid, fail and warn in capitals: they must stand out without colour too.
std::string verdict_word(Verdict v) {
  if (v == Verdict::invalid) return "INVALID";
  return v == Verdict::fail ? "FAIL" : v == Verdict::warn ? "WARN" : to_string(v);
}

// Numbered notes under the table, one per distinct text.
class Notes {
 public:
  std::string mark(const std::string& text) {
    auto [it, added] = index_.emplace(text, static_cast<int>(order_.size()) + 1);
    if (added) order_.push_back(text);
    // Appended rather than "[" + to_string(..): GCC 12 warns falsely (-Wrestrict) on the latter.
    std::string mark = "[";
    mark += std::to_string(it->second);
    mark += ']';
    return mark;
  }
  std::string render() const {
    std::string out;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      std::string mark = "  [";
      mark += std::to_string(i + 1);
      mark += "] ";
      out += wrap(order_[i], mark, std::string(mark.size(), ' '));
    }
    return out;
  }

 private:
  std::map<std::string, int> index_;
  std::vector<std::string> order_;
};

std::string ceiling_cell(const Measurement& m, Notes& notes) {
  const std::string mark = notes.mark(ceiling_note(m));
  // The unit is the median's (said once, in that column) unless the ceiling's differs.
  if (m.ceiling.ceiling) {
    const Ceiling& c = *m.ceiling.ceiling;
    return format_figure(c.value) + (c.unit == m.unit ? "" : " " + c.unit) + " " + mark;
  }
  return "unknown " + mark;
}

}  // namespace

std::string format_figure(double value) {
  char buffer[64];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string render_summary(const Report& report, bool color) { return render_summary(report, report.judged, color); }

std::string render_summary(const Report& report, const Judged& judged, bool color) {
  const Palette paint(color);
  const bool judged_any = is_judged(judged);
  const JudgementIndex index(judged);
  std::ostringstream out;
  out << paint.bold << pad_right("stage", kStageWidth) << pad_right("what", kWhatWidth)
      << pad_left("median", kMeasuredWidth) << pad_left("+/-", kSpreadWidth) << "  "
      << pad_right("ceiling", kCeilingWidth) << pad_left("% ceil", kPercentWidth) << (judged_any ? "  verdict" : "")
      << paint.reset << "\n";
  Notes notes;
  int rows = 0;
  for (const auto& stage : stages_in_pipeline_order(report)) {
    for (const Measurement* m : measurements_of(report, stage)) {
      out << pad_right(m->stage, kStageWidth) << pad_right(m->what, kWhatWidth)
          << pad_left(measured_text(*m), kMeasuredWidth) << pad_left(spread_cell(m->stats), kSpreadWidth) << "  "
          << pad_right(ceiling_cell(*m, notes), kCeilingWidth) << pad_left(percent_text(*m), kPercentWidth);
      if (judged_any) {
        const Judgement* j = index.find(m->key);
        out << "  " << (j ? paint.of(j->verdict) + verdict_word(j->verdict) + paint.reset : "-");
      }
      out << "\n";
      ++rows;
    }
  }
  if (rows == 0) out << "(no measurements)\n";
  const std::string note_text = notes.render();
  if (!note_text.empty()) out << "\nCeilings:\n" << note_text;

  const auto others = other_judgements(report, judged);
  if (!others.empty()) {
    out << "\nOther checks:\n";
    for (const Judgement* j : others) {
      const std::string word = pad_right(verdict_word(j->verdict), 8);
      const std::string text = (j->what.empty() ? j->subject : j->what) + ": " + j->explanation;
      // Colour wraps only the verdict word, so the wrapped width stays the visible width.
      std::string wrapped = wrap(text, "  " + word, std::string(10, ' '));
      if (color) wrapped = "  " + paint.of(j->verdict) + word + paint.reset + wrapped.substr(2 + word.size());
      out << wrapped;
    }
  }

  if (!judged.findings.empty()) {
    out << "\nFindings:\n";
    for (const auto& f : judged.findings) {
      const std::string word = pad_right(verdict_word(f.severity), 8);
      std::string wrapped = wrap(f.text, "  " + word, std::string(10, ' '));
      if (color) wrapped = "  " + paint.of(f.severity) + word + paint.reset + wrapped.substr(2 + word.size());
      out << wrapped;
    }
  }

  if (judged.budget) {
    const PipelineBudget& b = *judged.budget;
    std::string heading = wrap(b.workload + "):", "Pipeline budget (", "  ");
    out << "\n" << heading;
    for (const auto& s : b.stages) {
      const std::string rate = s.samples_per_second ? format_figure(*s.samples_per_second) + " samples/s" : "-";
      const bool bounding = s.stage == b.bounding_stage;
      out << wrap(s.derivation, "  " + pad_right(s.stage, 9) + pad_left(rate, 18) + (bounding ? " <- " : "    "),
                  std::string(33, ' '));
    }
    if (!b.explanation.empty()) out << wrap(b.explanation, "  ", "  ");
  }

  std::string problems;
  for (const auto& probe : report.probes) {
    if (probe.status == ProbeStatus::ok && probe.case_errors.empty()) continue;
    const std::string& tint = probe.status == ProbeStatus::failed ? paint.red : paint.yellow;
    const std::string word = pad_right(to_string(probe.status), 10);
    std::string wrapped = wrap(probe.stage + " (" + probe.probe + "): " + probe.reason, "  " + word, std::string(12, ' '));
    if (color) wrapped = "  " + tint + word + paint.reset + wrapped.substr(2 + word.size());
    problems += wrapped;
    for (const auto& error : probe.case_errors) problems += wrap("case error: " + error, std::string(12, ' '), std::string(14, ' '));
  }
  if (!problems.empty()) out << "\nProbes without full results:\n" << problems;
  out << render_conditions_summary(report);

  if (judged_any) {
    std::string word = verdict_word(judged.overall);
    for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out << "\n" << paint.bold << "Overall: " << paint.of(judged.overall) << word << paint.reset << paint.bold << " ("
        << counts_text(count_verdicts(judged)) << ")" << paint.reset << "\n";
  }
  return out.str();
}

}  // namespace pipecheck
