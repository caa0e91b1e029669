// watch.html: one self-contained page (inline CSS and SVG through render/svg_chart, no scripts,
// no network): the verdict with its figures, the observed rates against the measured ceilings,
// the time series (GPU utilization and power, PCIe, the job's CPU, the host, the disks) with the
// periodic idle shaded, and the processes and threads that used the CPU. Every string from the
// machine, the job or the user is escaped.
#pragma once

#include <string>
#include <vector>

#include "watch/watch_report.hpp"
#include "watch/watch_sample.hpp"

namespace pipecheck {

std::string render_watch_html(const WatchReport& report, const std::vector<WatchSample>& samples);

}  // namespace pipecheck
