// The pipeline budget: a training workload (image size, bytes per image, batch, step time) turns
// every stage's measured ceiling into samples/s, and names the stage that bounds training.
#pragma once

#include "core/inventory.hpp"
#include "report/report.hpp"
#include "report/verdict.hpp"
#include "budget/workload.hpp"

namespace pipecheck {

// Each stage's samples/s from the measurements (ceilings attached), the lowest named.
PipelineBudget pipeline_budget(const Report& report, const Inventory& inventory,
                               const Workload& workload);

}  // namespace pipecheck
