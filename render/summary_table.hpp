// The terminal summary at the end of `pipecheck run` and `pipecheck report`: one row a measurement
// (stage, what, median, +/-, ceiling, % of ceiling, verdict) fitted to the terminal's width, then
// ceiling notes, other checks, findings, the pipeline budget, the probes that produced nothing,
// and the overall verdict last, where the eye lands.
#pragma once

#include <string>

#include "render/render_support.hpp"
#include "report/report.hpp"

namespace pipecheck {

inline constexpr int kDefaultSummaryWidth = 100;  // not a terminal, no COLUMNS, no --width
inline constexpr int kMinSummaryWidth = 60;       // narrower widths are rendered at this one

struct SummaryStyle {
  bool color = false;              // ANSI colour on the verdict words
  int width = kDefaultSummaryWidth;  // columns of the terminal
};

// Verdicts and findings from `judged` (an empty Judged renders the table without verdicts).
std::string render_summary(const Report& report, const Judged& judged, const SummaryStyle& style);
// The same from the report's own judged records (report.judged).
std::string render_summary(const Report& report, const SummaryStyle& style);

}  // namespace pipecheck
