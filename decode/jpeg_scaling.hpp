// Thread counts for the decode probe: which to run, from a flag or up to the cores. (How well a
// rate scales is the report's, pair by pair over interleaved repetitions: ceilings/scaling_pairs.)
#pragma once

#include "core/dimensions.hpp"

#include <optional>
#include <string>
#include <vector>

#include "core/probe_flags.hpp"

namespace pipecheck {

// 1, 2, 4, ... up to `max_threads`, and `max_threads` itself.
std::vector<int> power_of_two_threads(int max_threads);

// The thread counts a run measures without --threads: 1, 2, 4, ... up to the CPUs, or in quick
// mode (an acceptance) 1 and all of them, the pair the scaling verdict needs (the sweep was 73
// of a quick run's cases on a 224-CPU node).
std::vector<int> default_thread_counts(int cpus, ProbeMode mode);

// --threads: "8" (up to 8 by powers of two) or a list "1,2,6". Throws UsageError naming the
// text when it is not positive whole numbers.
std::vector<int> parse_thread_counts(const std::string& text);

// `counts` with `n` added in order (once).
std::vector<int> with_thread_count(std::vector<int> counts, int n);


}  // namespace pipecheck
