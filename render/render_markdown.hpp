// report.md: the overall verdict, findings, a table per stage and the probes without results,
// in GitHub-flavoured Markdown for pasting into a ticket.
#pragma once

#include <string>

#include "core/inventory.hpp"
#include "render/render_support.hpp"
#include "report/report.hpp"

namespace pipecheck {

// Every string from the records is escaped for a table cell (render/escape.hpp).
std::string render_markdown(const Report& report, const Inventory& inventory, const Judged& judged,
                            const RenderExtras& extras);

}  // namespace pipecheck
