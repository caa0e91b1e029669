// report.html: one self-contained page (inline CSS and SVG, no scripts, no network) with the
// overall verdict, findings, measured-vs-ceiling bars per stage, scaling and size-sweep curves,
// stress telemetry over time, the inventory and the probes that produced nothing.
#pragma once

#include <string>

#include "core/inventory.hpp"
#include "render/render_support.hpp"
#include "report/report.hpp"

namespace pipecheck {

// Every string from the machine or the user is HTML-escaped (render/escape.hpp).
std::string render_html(const Report& report, const Inventory& inventory, const Judged& judged,
                        const RenderExtras& extras);

}  // namespace pipecheck
