// The pipeline budget (stub while it is written).
#include "reports/pipeline_budget.hpp"

#include "core/errors.hpp"

namespace pipecheck {

Workload parse_workload(const std::string& text) {
  Workload workload;
  workload.text = text;
  return workload;
}

std::string describe(const Workload& workload) { return workload.text; }

PipelineBudget pipeline_budget(const Report&, const Inventory&, const Workload& workload) {
  PipelineBudget budget;
  budget.workload = describe(workload);
  return budget;
}

}  // namespace pipecheck
