// watch.json: the watch's record as JSON (schema "pipecheck.watch"): the verdict with the figures
// behind it, each rule that fired, the observed rates against their measured ceilings, per-GPU,
// job, host and disk medians, and the processes and threads that used the CPU. The time series
// stay in watch.csv.
#pragma once

#include <nlohmann/json.hpp>

#include "watch/watch_report.hpp"

namespace pipecheck {

nlohmann::json watch_report_json(const WatchReport& report);

}  // namespace pipecheck
