// The terminal summary at the end of `pipecheck run` and `pipecheck report`: one row a measurement
// (stage, what, measured, ceiling, % of ceiling, verdict), readable at 100 columns, then ceiling
// notes, other checks, findings, the pipeline budget, the probes that produced nothing, and the
// overall verdict last, where the eye lands.
#pragma once

#include <string>

#include "reports/report.hpp"

namespace pipecheck {

// Verdicts and findings from `judged` (an empty Judged renders the table without verdicts).
std::string render_summary(const Report& report, const Judged& judged, bool color);
// The same from the report's own judged records (report.judged).
std::string render_summary(const Report& report, bool color);
// 3 significant figures for a figure in a table: 1234 -> "1234", 17.912 -> "17.9", 1.234 -> "1.23".
std::string format_figure(double value);

}  // namespace pipecheck
