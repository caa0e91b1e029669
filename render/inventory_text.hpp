// Text form of `pipecheck inventory`: the machine, each disk and GPU with its link and the
// ceilings derived from it, the software stack, and notes on what could not be read.
#pragma once

#include <string>

#include "core/inventory.hpp"

namespace pipecheck {

std::string render_inventory(const Inventory& inventory);

}  // namespace pipecheck
