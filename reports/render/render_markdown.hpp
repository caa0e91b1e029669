// report.md: the overall verdict, findings, a table per stage and the probes without results,
// in GitHub-flavoured Markdown for pasting into a ticket.
#pragma once

#include <string>

#include "core/inventory.hpp"
#include "reports/render/render_support.hpp"
#include "reports/report.hpp"

namespace pipecheck {

// Every string from the records is escaped for a table cell (reports/escape.hpp).
std::string render_markdown(const Report& report, const Inventory& inventory, const Judged& judged,
                            const RenderExtras& extras);

}  // namespace pipecheck
