// Completion-latency percentiles for the storage probe, computed the way fio reports clat:
// p50 / p99 / p99.9 of per-read completion times, in microseconds.
#pragma once

#include <cstdint>
#include <vector>

namespace pipecheck {

struct LatencyPercentiles {
  double p50_us = 0;
  double p99_us = 0;
  double p999_us = 0;
  std::size_t samples = 0;
};

// Nearest-rank percentile (the smallest sample with at least p% of samples at or below it),
// as fio does over its histogram, so our figures and fio's mean the same thing.
// `samples_ns` is sorted in place. Empty input gives zeros.
LatencyPercentiles latency_percentiles(std::vector<std::uint64_t>& samples_ns);

// One percentile of sorted samples, p in (0, 100].
std::uint64_t nearest_rank(const std::vector<std::uint64_t>& sorted, double p);

}  // namespace pipecheck
