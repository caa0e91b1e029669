// Comparison and fleet renderers: a fixed-width terminal table (plain, or ANSI colour when
// asked) and Markdown for pasting into tickets.
#include "render/compare_text.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/text_escape.hpp"
#include "render/summary_table.hpp"
#include "render/text_wrap.hpp"

namespace pipecheck {

namespace {

constexpr int kKeyWidth = 36;
constexpr int kUnitWidth = 9;
constexpr int kFigureWidth = 10;
constexpr int kChangeWidth = 8;
constexpr int kGroupWidth = 44;

const char* const kRed = "\033[31m";
const char* const kGreen = "\033[32m";
const char* const kYellow = "\033[33m";
const char* const kReset = "\033[0m";

// Cells come from report.json files (keys, units, hosts): outside text, escaped by the one policy
// (core/text_escape.hpp) before they are measured and cut.
std::string fit(const std::string& raw, int width) {
  const std::string text = printable_text(raw);
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

// The first column of a row: a key or host longer than its column is never cut (its end is what
// tells "gpu0/bytes:4096" from "gpu0/bytes:4194304"): it takes a line of its own and the row's
// figures continue on the next, under the column.
std::string name_cell(const std::string& raw, int width) {
  const std::string text = printable_text(raw);
  if (static_cast<int>(text.size()) <= width) return text + std::string(width - text.size(), ' ');
  std::string lines;
  for (const auto& line : wrap_words(text, kCompareTextWidth)) lines += line + "\n";
  return lines + std::string(width, ' ');
}

std::string paint(const std::string& text, const char* colour, bool color) {
  return color && colour != nullptr ? colour + text + kReset : text;
}

// Words of `text` on lines of at most `width` columns, continuation lines indented; a word longer
// than a line is split, never cut.
std::string wrap(const std::string& text, int width, const std::string& first, const std::string& rest) {
  return wrap_text(text, first, rest, static_cast<std::size_t>(width));
}

std::string figure_or_dash(const std::optional<Statistics>& stats) {
  return stats ? format_figure(stats->median) : "-";
}

std::string range_text(const Statistics& s) {
  return format_figure(s.median) + " [" + format_figure(s.min) + " - " + format_figure(s.max) + "]";
}

std::string p_text(double p) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", p);
  return text;
}

// The result cell: the kind, and for an unchanged figure the reason in short.
std::string result_cell(const MeasurementChange& c) {
  if (c.kind == ChangeKind::regressed) return "REGRESSED";
  if (c.kind == ChangeKind::incomparable) return c.reason.starts_with("not comparable") ? "busy: not compared" : "unit changed";
  if (c.kind == ChangeKind::inconclusive) return "INCONCLUSIVE";
  if (c.kind != ChangeKind::unchanged) return to_string(c.kind);
  if (c.reason.starts_with("within noise")) return "within noise";
  if (c.reason.starts_with("below")) return "below threshold";
  if (c.reason.starts_with("too few")) return "too few reps";
  return "unchanged";
}

const char* result_colour(ChangeKind kind) {
  if (kind == ChangeKind::regressed || kind == ChangeKind::missing) return kRed;
  if (kind == ChangeKind::improved) return kGreen;
  if (kind == ChangeKind::inconclusive) return kYellow;
  return nullptr;
}

std::string label_line(const std::string& name, const RunLabel& label) {
  std::string text = label.host + ", " + label.started_utc;
  if (!label.source.empty()) text += " (" + label.source + ")";
  return wrap_text(text, "  " + name, "    ", kCompareTextWidth);  // a long path wraps, never cut
}

std::string noise_rule(const CompareOptions& options) {
  char text[400];
  std::snprintf(text, sizeof text,
                "beyond noise: Mann-Whitney U on the repetitions, q <= %g across the comparison "
                "(Benjamini-Hochberg), |change| >= %g%% and above the measured noise; runs without kept "
                "repetitions: [min, max] ranges disjoint (chance from noise <= %g) and |change| >= %g%%",
                options.false_discovery_rate, options.threshold_percent, options.max_p_value, options.threshold_percent);
  return text;
}

std::string change_row(const MeasurementChange& c, bool color) {
  const std::string unit = c.kind == ChangeKind::incomparable ? c.baseline_unit + ">" + c.unit : c.unit;
  return name_cell(c.key, kKeyWidth) + " " + pad_right(unit, kUnitWidth) + " " +
         pad_left(figure_or_dash(c.baseline), kFigureWidth) + " " +
         pad_left(figure_or_dash(c.current), kFigureWidth) + " " +
         pad_left(format_change(c.change_percent), kChangeWidth) + "  " +
         paint(result_cell(c), result_colour(c.kind), color) + "\n";
}

// The evidence behind each change beyond noise: both ranges and the chance of noise.
std::string evidence(const Comparison& comparison, ChangeKind kind) {
  std::string out;
  for (const auto& c : comparison.changes) {
    if (c.kind != kind) continue;
    for (const auto& line : wrap_words(c.key, kCompareTextWidth - 2)) out += "  " + line + "\n";
    std::string line = range_text(*c.baseline) + " -> " + range_text(*c.current) + " " + c.unit + ", " +
                       format_change(c.change_percent);
    if (c.p_value && c.q_value) {
      line += ", p = " + p_text(*c.p_value) + ", q = " + p_text(*c.q_value) + " (" + std::to_string(c.baseline->samples) +
              " vs " + std::to_string(c.current->samples) + " repetitions)";
    } else if (c.p_value) {
      line += ", chance from noise " + p_text(*c.p_value) + " (" + std::to_string(c.baseline->samples) +
              " vs " + std::to_string(c.current->samples) + " repetitions)";
    }
    out += wrap(line, kCompareTextWidth, "    ", "      ");
  }
  return out.empty() ? "" : std::string("\n") + (kind == ChangeKind::regressed ? "regressed" : "improved") +
                                " beyond noise:\n" + out;
}

// The changes as large as a regression that could not be told apart, with why.
std::string inconclusive_text(const Comparison& comparison) {
  std::string out;
  for (const auto& c : comparison.changes) {
    if (!c.would_regress || c.kind == ChangeKind::regressed) continue;
    for (const auto& line : wrap_words(c.key, kCompareTextWidth - 2)) out += "  " + line + "\n";
    out += wrap(format_change(c.change_percent) + ": " + c.reason, kCompareTextWidth, "    ", "      ");
  }
  return out.empty() ? "" : "\ncannot tell (as large as a regression, but not beyond doubt):\n" + out;
}

std::string verdict_text(const Comparison& comparison) {
  if (comparison.has_regression()) return "REGRESSION beyond noise";
  if (comparison.nothing_compared()) return "INCONCLUSIVE: no measurement was in both runs, nothing was compared";
  if (comparison.inconclusive()) return "INCONCLUSIVE: no regression beyond noise, but a change as large as one could not be told apart";
  return "no regression beyond noise";
}

const char* verdict_colour(const Comparison& comparison) {
  return comparison.has_regression() ? kRed : comparison.inconclusive() ? kYellow : kGreen;
}

std::string counts_text(const Comparison& c) {
  return std::to_string(c.count(ChangeKind::regressed)) + " regressed, " +
         std::to_string(c.count(ChangeKind::improved)) + " improved, " +
         std::to_string(c.count(ChangeKind::unchanged)) + " unchanged, " +
         std::to_string(c.count(ChangeKind::added)) + " new, " +
         std::to_string(c.count(ChangeKind::missing)) + " missing" +
         (c.count(ChangeKind::inconclusive) ? ", " + std::to_string(c.count(ChangeKind::inconclusive)) + " inconclusive"
                                            : "") +
         (c.count(ChangeKind::incomparable) ? ", " + std::to_string(c.count(ChangeKind::incomparable)) +
                                                  " not comparable"
                                            : "");
}

std::string notes_text(const std::vector<std::string>& notes) {
  if (notes.empty()) return "";
  std::string out = "\nnotes:\n";
  for (const auto& note : notes) out += wrap(note, kCompareTextWidth, "  - ", "    ");
  return out;
}

std::string md_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '`') out += '\\';
    out += c;
  }
  return out;
}

std::string md_code(const std::string& text) {
  std::string out = text;
  std::replace(out.begin(), out.end(), '`', '\'');
  std::string escaped;
  for (char c : out) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return "`" + escaped + "`";
}

std::string md_label_row(const std::string& name, const RunLabel& label) {
  return "| " + name + " | " + md_escape(label.host) + " | " + md_escape(label.started_utc) + " | " +
         (label.source.empty() ? "" : md_code(label.source)) + " |\n";
}

std::string outlier_subject(const std::string& host, const std::string& gpu, const std::string& name) {
  if (gpu.empty()) return host;
  return host + " " + gpu + (name.empty() ? "" : " (" + name + ")");
}

std::string outlier_line(const FleetOutlier& o) {
  return outlier_subject(o.host, o.gpu, o.gpu_name) + ": " + std::to_string(o.outlier_count) +
         " figure(s) beyond tolerance, worst " + o.worst_key + " " +
         format_change(o.worst_deviation_percent);
}

std::string fleet_heading(const FleetResult& result) {
  std::string hosts;
  for (const auto& run : result.runs) hosts += (hosts.empty() ? "" : ", ") + run.host;
  char rule[120];
  std::snprintf(rule, sizeof rule, "outlier: worse than the fleet median by more than %g%%",
                result.options.tolerance_percent);
  return wrap(std::to_string(result.runs.size()) + " hosts: " + hosts, kCompareTextWidth,
              "pipecheck fleet: ", "  ") +
         "  " + rule + "\n";
}

std::string outliers_text(const std::vector<FleetOutlier>& outliers, const std::string& title, bool color) {
  if (outliers.empty()) return "";
  std::string out = "\n" + paint(title, kRed, color) + "\n";
  for (const auto& o : outliers) out += wrap(outlier_line(o), kCompareTextWidth, "  ", "    ");
  return out;
}

std::string spread_text(const FleetGroup& g) {
  double low = g.samples.front().stats.median, high = low;
  for (const auto& s : g.samples) {
    low = std::min(low, s.stats.median);
    high = std::max(high, s.stats.median);
  }
  return format_figure(low) + " - " + format_figure(high);
}

std::string group_rows(const FleetGroup& g, bool color) {
  std::string out = name_cell(g.group, kGroupWidth) + " " + pad_right(g.unit, kUnitWidth) + " " +
                    pad_left(g.judged ? format_figure(g.fleet_median) : "-", kFigureWidth) + " " +
                    pad_left(std::to_string(g.samples.size()), 7) + "  " + spread_text(g) + "\n";
  for (const auto& s : g.samples) {
    if (!s.outlier) continue;
    const std::string who = "  outlier " + outlier_subject(s.host, s.gpu, "");
    out += paint(name_cell(who, kGroupWidth) + " " + pad_right(g.unit, kUnitWidth) + " " +
                     pad_left(format_figure(s.stats.median), kFigureWidth) + " " +
                     pad_left(format_change(s.deviation_percent), 7),
                 kRed, color) +
           "\n";
  }
  return out;
}

std::string md_outliers(const std::vector<FleetOutlier>& outliers, const std::string& title) {
  if (outliers.empty()) return "";
  std::string out = "\n**" + title + "**\n\n";
  for (const auto& o : outliers) out += "- " + md_escape(outlier_line(o)) + "\n";
  return out;
}

std::string md_notes(const std::vector<std::string>& notes) {
  std::string out = notes.empty() ? "" : "\n**Notes**\n\n";
  for (const auto& note : notes) out += "- " + md_escape(note) + "\n";
  return out;
}

}  // namespace

std::string format_change(const std::optional<double>& percent) {
  if (!percent) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", *percent);
  return text;
}

std::string render_comparison_text(const Comparison& comparison, bool color) {
  std::string out = "pipecheck compare\n" + label_line("baseline: ", comparison.baseline) +
                    label_line("current:  ", comparison.current) +
                    wrap(noise_rule(comparison.options), kCompareTextWidth, "  ", "    ") + "\n";
  out += pad_right("measurement", kKeyWidth) + " " + pad_right("unit", kUnitWidth) + " " +
         pad_left("baseline", kFigureWidth) + " " + pad_left("current", kFigureWidth) + " " +
         pad_left("change", kChangeWidth) + "  result\n";
  out += std::string(kCompareTextWidth - 2, '-') + "\n";
  for (const auto& c : comparison.changes) out += change_row(c, color);
  out += evidence(comparison, ChangeKind::regressed) + evidence(comparison, ChangeKind::improved);
  out += inconclusive_text(comparison);
  out += notes_text(comparison.notes);
  out += "\nresult: " + paint(verdict_text(comparison), verdict_colour(comparison), color) + " (" +
         counts_text(comparison) + ")\n";
  return out;
}

std::string render_comparison_markdown(const Comparison& comparison) {
  std::string out = "## pipecheck compare\n\n| run | host | started | source |\n|---|---|---|---|\n";
  out += md_label_row("baseline", comparison.baseline) + md_label_row("current", comparison.current);
  out += "\n" + noise_rule(comparison.options) + "\n\n";
  out += "| measurement | unit | baseline | current | change | result |\n|---|---|--:|--:|--:|---|\n";
  for (const auto& c : comparison.changes) {
    const std::string cell = result_cell(c);
    const bool strong = c.kind == ChangeKind::regressed || c.kind == ChangeKind::improved;
    out += "| " + md_code(c.key) + " | " + md_escape(c.unit) + " | " + figure_or_dash(c.baseline) + " | " +
           figure_or_dash(c.current) + " | " + format_change(c.change_percent) + " | " +
           (strong ? "**" + cell + "**" : cell) + " |\n";
  }
  out += md_notes(comparison.notes);
  out += "\n**Result:** " + verdict_text(comparison) + " (" + counts_text(comparison) + ")\n";
  return out;
}

std::string render_fleet_text(const FleetResult& result, bool color) {
  std::string out = fleet_heading(result);
  out += outliers_text(result.outlier_hosts, "outlier hosts:", color);
  out += outliers_text(result.outlier_gpus, "outlier GPUs:", color);
  out += "\n" + pad_right("measurement", kGroupWidth) + " " + pad_right("unit", kUnitWidth) + " " +
         pad_left("median", kFigureWidth) + " " + pad_left("figures", 7) + "  spread\n";
  out += std::string(kCompareTextWidth - 2, '-') + "\n";
  for (const auto& g : result.groups) out += group_rows(g, color);
  out += notes_text(result.notes);
  out += "\nresult: " +
         (result.has_outliers()
              ? paint(std::to_string(result.outlier_hosts.size()) + " outlier host(s), " +
                          std::to_string(result.outlier_gpus.size()) + " outlier GPU(s)",
                      kRed, color)
              : paint("no outliers", kGreen, color)) +
         "\n";
  return out;
}

std::string render_fleet_markdown(const FleetResult& result) {
  std::string out = "## pipecheck fleet\n\n" + std::to_string(result.runs.size()) + " hosts; ";
  char rule[120];
  std::snprintf(rule, sizeof rule, "outlier: worse than the fleet median by more than %g%%.\n",
                result.options.tolerance_percent);
  out += rule;
  out += md_outliers(result.outlier_hosts, "Outlier hosts");
  out += md_outliers(result.outlier_gpus, "Outlier GPUs");
  out += "\n| measurement | unit | fleet median | figures | outliers |\n|---|---|--:|--:|---|\n";
  for (const auto& g : result.groups) {
    std::string outliers;
    for (const auto& s : g.samples) {
      if (s.outlier) {
        outliers += (outliers.empty() ? "" : ", ") + md_escape(outlier_subject(s.host, s.gpu, "")) + " " +
                    format_change(s.deviation_percent);
      }
    }
    out += "| " + md_code(g.group) + " | " + md_escape(g.unit) + " | " +
           (g.judged ? format_figure(g.fleet_median) : "-") + " | " + std::to_string(g.samples.size()) +
           " | " + outliers + " |\n";
  }
  out += md_notes(result.notes);
  return out;
}

}  // namespace pipecheck
