// A Prometheus textfile (node_exporter textfile collector format) of one run: each measurement's
// value, ceiling and % of ceiling, each verdict, and whether the run passed, for fleet dashboards.
#pragma once

#include <string>

#include "core/inventory.hpp"
#include "reports/render/render_support.hpp"
#include "reports/report.hpp"

namespace pipecheck {

// Metric families, each with # HELP and # TYPE (gauges):
//   pipecheck_measurement_value{key,stage,unit}              median of the repetitions
//   pipecheck_measurement_ceiling{key,stage,unit}            only where the ceiling is known
//   pipecheck_measurement_percent_of_ceiling{key,stage}      only where known
//   pipecheck_verdict{subject,stage,verdict} 1               one sample per judgement
//   pipecheck_overall_pass                                   1 unless the overall verdict is fail
//   pipecheck_probe_ok{probe,stage,status}                   1 when the probe ran to the end
//   pipecheck_findings{severity}                             findings per severity
//   pipecheck_budget_samples_per_second{stage}               with a workload
//   pipecheck_run_finished_timestamp_seconds                 when the run ended
// Unknown values are left out, never written as NaN. Label values are escaped (\\ \" \n).
std::string render_prometheus(const Report& report, const Inventory& inventory, const Judged& judged,
                              const RenderExtras& extras);

}  // namespace pipecheck
