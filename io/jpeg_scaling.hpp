// Thread-scaling arithmetic for the decode probe: which thread counts to run and how well a
// rate scales (N-thread rate / (N x 1-thread rate)).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

// N-thread rate / (N x 1-thread rate); nullopt when an input is not a positive finite figure.
std::optional<double> scaling_efficiency(double rate_1, double rate_n, int n);

// 1, 2, 4, ... up to `max_threads`, and `max_threads` itself.
std::vector<int> power_of_two_threads(int max_threads);

// --threads: "8" (up to 8 by powers of two) or a list "1,2,6". Throws UsageError naming the
// text when it is not positive whole numbers.
std::vector<int> parse_thread_counts(const std::string& text);

// `counts` with `n` added in order (once).
std::vector<int> with_thread_count(std::vector<int> counts, int n);

// "2000x1500" -> {2000, 1500}; throws UsageError naming `flag` and the text when malformed.
std::pair<int, int> parse_dimensions(const std::string& flag, const std::string& text);

}  // namespace pipecheck
