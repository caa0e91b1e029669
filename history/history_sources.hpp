// The history's record of a node check (`pipecheck check`) and of a stress run (`pipecheck
// stress`), which write no report.json: the check's problems become verdicts (Xid and ECC
// problems faults too), the stress summary's sustained rates become measurements and its Xids,
// ECC errors, hangs and wrong results faults.
#pragma once

#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "health/health_check.hpp"
#include "history/history_record.hpp"
#include "stress/stress_summary.hpp"

namespace pipecheck {

// The overall verdict is the worst problem's (fail, inconclusive), else pass; finished now.
HistoryRun history_run_from_check(const Inventory& inventory, const std::vector<HealthProblem>& problems,
                                  const std::string& mode, const std::string& started_utc);

HistoryRun history_run_from_stress(const StressSummary& summary, const std::string& source);

}  // namespace pipecheck
