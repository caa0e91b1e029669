// Completion-latency percentiles (nearest rank) for the storage probe.
#include "storage/storage_latency.hpp"

#include <algorithm>
#include <cmath>

namespace pipecheck {

std::uint64_t nearest_rank(const std::vector<std::uint64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  // ceil(p/100 * n) is the 1-based rank; the small epsilon keeps 99.9% of 1000 at rank 999
  // despite 0.999 * 1000 being 999.0000000000001 in binary floating point.
  const double exact = p / 100.0 * static_cast<double>(sorted.size());
  auto rank = static_cast<std::size_t>(std::ceil(exact - 1e-9));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

LatencyPercentiles latency_percentiles(std::vector<std::uint64_t>& samples_ns) {
  LatencyPercentiles result;
  result.samples = samples_ns.size();
  if (samples_ns.empty()) return result;
  std::sort(samples_ns.begin(), samples_ns.end());
  result.p50_us = static_cast<double>(nearest_rank(samples_ns, 50.0)) / 1000.0;
  result.p99_us = static_cast<double>(nearest_rank(samples_ns, 99.0)) / 1000.0;
  result.p999_us = static_cast<double>(nearest_rank(samples_ns, 99.9)) / 1000.0;
  return result;
}

}  // namespace pipecheck
