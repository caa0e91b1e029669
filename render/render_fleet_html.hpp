// The fleet page (`pipecheck compare --fleet DIR`): a hosts x stages matrix where each cell is
// the host's worst shortfall from the fleet median in that stage and outliers are marked, the
// outlier hosts and GPUs, and every group's figures. Self-contained HTML, no script.
#pragma once

#include <string>

#include "compare/fleet.hpp"

namespace pipecheck {

// The stage of a fleet group: the first part of its key (hostmem/memcpy/threads:1 -> hostmem).
std::string fleet_stage_of(const FleetGroup& group);

std::string render_fleet_html(const FleetResult& result);

}  // namespace pipecheck
