// The quiet-machine check `pipecheck run` does before its first probe (as pyperf checks the
// system before it trusts a timing): one second of the machine with nothing of ours running,
// naming the busiest other processes, other GPU users and the CPU frequency governor; with
// --wait-quiet S it keeps looking, up to S seconds, until other processes calm down.
#pragma once

#include <atomic>
#include <iosfwd>

#include "app/gpu_conditions_watch.hpp"
#include "core/run_conditions.hpp"

namespace pipecheck {

struct QuietCheckOptions {
  double threshold_percent = 20;  // other processes' CPU that counts as busy, % of one core
  double wait_seconds = 0;        // --wait-quiet
  double window_seconds = 1;      // each look at the machine
};

// Looks until quiet or the wait is over (or `stop` is set), prints each warning on `err` as
// "pipecheck: ..." and returns the last look.
QuietCheck check_machine_quiet(const QuietCheckOptions& options, GpuConditionsWatch& gpus,
                               const std::atomic<bool>& stop, std::ostream& err);

}  // namespace pipecheck
