// The conditions each probe ran under (core/run_conditions) and the quiet-machine check before
// the run, for the terminal summary, the Markdown and the HTML report: one small piece the
// renderers each call once. Every renderer prints nothing when the report has no conditions
// (reports written before they were measured).
#pragma once

#include <string>

#include "report/report.hpp"

namespace pipecheck {

// "Conditions (other processes' CPU in % of one core):" then one wrapped line a probe.
std::string render_conditions_summary(const Report& report);
// "## Conditions" with a table a probe.
std::string render_conditions_markdown(const Report& report);
// <section id="conditions"> with a table a probe; every string escaped.
std::string render_conditions_html(const Report& report);

// One probe's conditions in words: "others 187% of a core (stress-ng (pid 812) 98%), steal 0%,
// iowait 0.1%, load 3.43, 2 of 2 CPUs, governor performance, 2.4-3.1 GHz".
std::string conditions_words(const RunConditions& conditions);

}  // namespace pipecheck
