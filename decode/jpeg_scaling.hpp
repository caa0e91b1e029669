// Thread counts for the decode probe: which to run, from a flag or up to the cores. (How well a
// rate scales is the report's, pair by pair over interleaved repetitions: ceilings/scaling_pairs.)
#pragma once

#include "core/dimensions.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

// 1, 2, 4, ... up to `max_threads`, and `max_threads` itself.
std::vector<int> power_of_two_threads(int max_threads);

// --threads: "8" (up to 8 by powers of two) or a list "1,2,6". Throws UsageError naming the
// text when it is not positive whole numbers.
std::vector<int> parse_thread_counts(const std::string& text);

// `counts` with `n` added in order (once).
std::vector<int> with_thread_count(std::vector<int> counts, int n);


}  // namespace pipecheck
