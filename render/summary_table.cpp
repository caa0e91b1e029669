// Terminal summary renderer (plain text; ANSI colour only when asked). The table fits the width
// it is given: each figure column is as wide as its widest cell, the "what" column gets the rest
// and wraps inside it; when that leaves it too narrow (about 100 columns and less) each row takes
// two lines, the what and then the figures. Nothing is ever cut: the part of a label that tells
// two rows apart ("1 thread", "2 threads") may be its last words.
#include "render/summary_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "render/conditions_text.hpp"
#include "core/probe_reason.hpp"
#include "core/text_escape.hpp"
#include "render/render_support.hpp"
#include "render/text_wrap.hpp"

namespace pipecheck {

namespace {

constexpr std::size_t kGap = 2;            // spaces between columns
constexpr std::size_t kMinWhatWidth = 24;  // narrower than this, rows take two lines

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
  std::string render(std::size_t width) const {
    std::string out;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      std::string mark = "  [";
      mark += std::to_string(i + 1);
      mark += "] ";
      out += wrap_text(order_[i], mark, std::string(mark.size(), ' '), width);
    }
    return out;
  }

 private:
  std::map<std::string, int> index_;
  std::vector<std::string> order_;
};

// With its unit: a decode ceiling is in images/s, not a bare number.
std::string ceiling_cell(const Measurement& m, Notes& notes) {
  const std::string mark = notes.mark(ceiling_note(m));
  return (m.ceiling.ceiling ? ceiling_value_text(m) : std::string("unknown")) + " " + mark;
}

// The repetitions' spread around the median, in % of it: "2.1%" (the wider side); the HTML and
// Markdown reports carry min and max themselves.
std::string spread_cell(const Statistics& stats) {
  if (stats.samples <= 1 || stats.median == 0) return "-";
  const double spread = std::max(stats.max - stats.median, stats.median - stats.min) / std::fabs(stats.median) * 100;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", spread);
  return text;
}

// One measurement's cells, before layout.
struct Row {
  std::string stage, what, median, spread, ceiling, percent;
  const Judgement* judgement = nullptr;
};

struct Column {
  const char* header;
  std::string Row::*cell;
  bool right_aligned;
};
const Column kFigureColumns[] = {
    {"median", &Row::median, true},
    {"+/-", &Row::spread, true},
    {"ceiling", &Row::ceiling, false},
    {"% ceil", &Row::percent, true},
};
constexpr std::size_t kFigureCount = sizeof kFigureColumns / sizeof kFigureColumns[0];

class Table {
 public:
  Table(std::vector<Row> rows, bool judged, std::size_t width, const Palette& paint)
      : rows_(std::move(rows)), judged_(judged), width_(width), paint_(paint) {
    stage_width_ = display_width("stage");
    std::size_t longest_what = display_width("what");
    for (const auto& row : rows_) {
      stage_width_ = std::max(stage_width_, display_width(row.stage));
      longest_what = std::max(longest_what, display_width(row.what));
    }
    for (std::size_t i = 0; i < kFigureCount; ++i) {
      figure_widths_[i] = display_width(kFigureColumns[i].header);
      for (const auto& row : rows_) figure_widths_[i] = std::max(figure_widths_[i], display_width(row.*kFigureColumns[i].cell));
    }
    verdict_width_ = display_width("verdict");
    for (const auto& row : rows_) {
      if (row.judgement) verdict_width_ = std::max(verdict_width_, display_width(verdict_word(row.judgement->verdict)));
    }
    const std::size_t fixed = stage_width_ + kGap + kGap + figures_width();
    // One line a row when every what fits whole, or the column can still hold a phrase.
    two_line_ = width_ < fixed + std::min(longest_what, kMinWhatWidth);
    what_width_ = two_line_ ? 0 : std::min(longest_what, width_ - fixed);
  }

  std::string render() const {
    std::string out = header();
    for (const auto& row : rows_) out += render_row(row);
    return out;
  }

 private:
  std::size_t figures_width() const {
    std::size_t width = 0;
    for (std::size_t i = 0; i < kFigureCount; ++i) width += (i ? kGap : 0) + figure_widths_[i];
    return judged_ ? width + kGap + verdict_width_ : width;
  }

  // The last cell of a line is not padded: no trailing spaces.
  std::string cell(std::size_t i, const std::string& text, bool last) const {
    const std::string gap = i ? std::string(kGap, ' ') : "";
    if (kFigureColumns[i].right_aligned) return gap + pad_left(text, figure_widths_[i]);
    return gap + (last ? text : pad_right(text, figure_widths_[i]));
  }

  std::string figures_header() const {
    std::string out;
    for (std::size_t i = 0; i < kFigureCount; ++i) out += cell(i, kFigureColumns[i].header, i + 1 == kFigureCount && !judged_);
    if (judged_) out += std::string(kGap, ' ') + "verdict";
    return out;
  }

  std::string figures_of(const Row& row) const {
    std::string out;
    for (std::size_t i = 0; i < kFigureCount; ++i) out += cell(i, row.*kFigureColumns[i].cell, i + 1 == kFigureCount && !judged_);
    if (judged_) {
      out += std::string(kGap, ' ');
      const Judgement* j = row.judgement;
      out += j ? paint_.of(j->verdict) + verdict_word(j->verdict) + paint_.reset : "-";
    }
    return out;
  }

  std::string indent() const { return std::string(stage_width_ + kGap, ' '); }
  // Two-line rows put the figures under the what, as far right as the width lets them.
  std::string figures_indent() const {
    const std::size_t figures = figures_width();
    return std::string(figures + stage_width_ + kGap <= width_ ? stage_width_ + kGap
                                                               : width_ > figures ? width_ - figures : 0,
                       ' ');
  }

  std::string header() const {
    const std::string stage = pad_right("stage", stage_width_ + kGap);
    if (two_line_) {
      return paint_.bold + stage + "what" + paint_.reset + "\n" + paint_.bold + figures_indent() + figures_header() +
             paint_.reset + "\n";
    }
    return paint_.bold + stage + pad_right("what", what_width_ + kGap) + figures_header() + paint_.reset + "\n";
  }

  std::string render_row(const Row& row) const {
    const std::string stage = pad_right(row.stage, stage_width_ + kGap);
    if (two_line_) return wrap_text(row.what, stage, indent(), width_) + figures_indent() + figures_of(row) + "\n";
    const auto what = wrap_words(row.what, what_width_);
    std::string out = stage + pad_right(what[0], what_width_ + kGap) + figures_of(row) + "\n";
    for (std::size_t i = 1; i < what.size(); ++i) out += indent() + what[i] + "\n";
    return out;
  }

  std::vector<Row> rows_;
  bool judged_;
  std::size_t width_;
  const Palette& paint_;
  std::size_t stage_width_ = 0;
  std::size_t what_width_ = 0;
  std::size_t figure_widths_[kFigureCount] = {};
  std::size_t verdict_width_ = 0;
  bool two_line_ = false;
};

// "  FAIL    text...": the word in colour, the text wrapped at the width beside it.
class MarkedLines {
 public:
  MarkedLines(std::size_t word_width, std::size_t width, const Palette& paint, bool color)
      : word_width_(word_width), width_(width), paint_(paint), color_(color) {}

  std::string line(const std::string& word, const std::string& tint, const std::string& text) const {
    const std::string plain = pad_right(word, word_width_);
    std::string wrapped = wrap_text(text, "  " + plain, std::string(2 + word_width_, ' '), width_);
    // Colour wraps only the word, so the wrapped width stays the visible width.
    if (color_) wrapped = "  " + tint + plain + paint_.reset + wrapped.substr(2 + plain.size());
    return wrapped;
  }

 private:
  std::size_t word_width_;
  std::size_t width_;
  const Palette& paint_;
  bool color_;
};

// The words of a section are padded to the longest, plus a space.
template <typename Items, typename WordOf>
std::size_t word_width(const Items& items, WordOf word_of, std::size_t at_least) {
  std::size_t width = at_least;
  for (const auto& item : items) width = std::max(width, display_width(word_of(item)) + 2);
  return width;
}

}  // namespace

std::string render_summary(const Report& report, const SummaryStyle& style) {
  return render_summary(report, report.judged, style);
}

std::string render_summary(const Report& report, const Judged& judged, const SummaryStyle& style) {
  const bool color = style.color;
  const std::size_t width = static_cast<std::size_t>(std::max(style.width, kMinSummaryWidth));
  const Palette paint(color);
  const bool judged_any = is_judged(judged);
  const JudgementIndex index(judged);
  std::ostringstream out;
  Notes notes;
  std::vector<Row> rows;
  for (const auto& stage : stages_in_pipeline_order(report)) {
    for (const Measurement* m : measurements_of(report, stage)) {
      // Cells from the records are outside text (a probe's label, an edited report.json): one
      // line each, escaped by the one policy (core/text_escape.hpp) before they are measured.
      rows.push_back({printable_text(m->stage), printable_text(m->what), printable_text(measured_text(*m)),
                      spread_cell(m->stats), printable_text(ceiling_cell(*m, notes)), percent_text(*m),
                      index.find(m->key)});
    }
  }
  if (rows.empty()) {
    out << "(no measurements)\n";
  } else {
    out << Table(std::move(rows), judged_any, width, paint).render();
    out << "\n"
        << wrap_text("median of the repetitions; +/- the wider side of their spread around it, in % of the median; "
                     "ceiling [n] the hardware's, derived in note n below; % ceil the median as % of the ceiling.",
                     "", "", width);
  }
  const std::string note_text = notes.render(width);
  if (!note_text.empty()) out << "\nCeilings:\n" << note_text;

  const auto others = other_judgements(report, judged);
  if (!others.empty()) {
    out << "\nOther checks:\n";
    const MarkedLines lines(word_width(others, [](const Judgement* j) { return verdict_word(j->verdict); }, 8), width,
                            paint, color);
    for (const Judgement* j : others) {
      out << lines.line(verdict_word(j->verdict), paint.of(j->verdict),
                        (j->what.empty() ? j->subject : j->what) + ": " + j->explanation);
    }
  }

  if (!judged.findings.empty()) {
    out << "\nFindings:\n";
    const MarkedLines lines(word_width(judged.findings, [](const Finding& f) { return verdict_word(f.severity); }, 8),
                            width, paint, color);
    for (const auto& f : judged.findings) out << lines.line(verdict_word(f.severity), paint.of(f.severity), f.text);
  }

  if (judged.budget) {
    const PipelineBudget& b = *judged.budget;
    out << "\n" << wrap_text(b.workload + "):", "Pipeline budget (", "  ", width);
    for (const auto& s : b.stages) {
      const std::string rate = s.samples_per_second ? format_figure(*s.samples_per_second) + " samples/s" : "-";
      const bool bounding = s.stage == b.bounding_stage;
      out << wrap_text(s.derivation, "  " + pad_right(s.stage, 9) + pad_left(rate, 18) + (bounding ? " <- " : "    "),
                       std::string(33, ' '), width);
    }
    if (!b.explanation.empty()) out << wrap_text(b.explanation, "  ", "  ", width);
  }

  std::string problems;
  const MarkedLines probe_lines(12, width, paint, color);
  for (const auto& probe : report.probes) {
    if (probe.status == ProbeStatus::ok && probe.case_errors.empty()) continue;
    const std::string& tint = probe.status == ProbeStatus::failed ? paint.red : paint.yellow;
    problems += probe_lines.line(to_string(probe.status), tint, probe.stage + " (" + probe.probe + "): " + reason_beside_status(probe));
    for (const auto& error : probe.case_errors) {
      problems += wrap_text("case error: " + error, std::string(14, ' '), std::string(16, ' '), width);
    }
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
