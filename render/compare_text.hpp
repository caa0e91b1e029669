// Terminal and Markdown renderings of a two-run comparison and of a fleet result, each line at
// most 100 columns in the terminal form. Renderers only: the figures come from compare/fleet.
#pragma once

#include <string>

#include "compare/compare.hpp"
#include "compare/fleet.hpp"

namespace pipecheck {

constexpr int kCompareTextWidth = 100;

// color: ANSI red for regressions and outliers, green for improvements.
std::string render_comparison_text(const Comparison& comparison, bool color = false);
std::string render_comparison_markdown(const Comparison& comparison);
std::string render_fleet_text(const FleetResult& result, bool color = false);
std::string render_fleet_markdown(const FleetResult& result);

// "+12.3%", "-0.4%"; "-" when there is no change to show.
std::string format_change(const std::optional<double>& percent);

}  // namespace pipecheck
