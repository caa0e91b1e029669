// The terminal summary at the end of `pipecheck run`: one row a measurement (stage, what,
// measured, ceiling, % of ceiling), readable at 100 columns, then ceiling notes and the probes
// that produced nothing, with why.
#pragma once

#include <string>

#include "reports/report.hpp"

namespace pipecheck {

std::string render_summary(const Report& report, bool color);
// 3 significant figures for a figure in a table: 1234 -> "1234", 17.912 -> "17.9", 1.234 -> "1.23".
std::string format_figure(double value);

}  // namespace pipecheck
