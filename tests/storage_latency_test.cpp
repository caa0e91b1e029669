// Completion-latency percentiles of the storage probe (nearest rank, as fio's clat).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "storage/storage_latency.hpp"

namespace pipecheck {
namespace {

TEST(StorageLatency, NearestRankOfOneToHundred) {
  std::vector<std::uint64_t> samples;
  for (std::uint64_t i = 1; i <= 100; ++i) samples.push_back(i);
  EXPECT_EQ(nearest_rank(samples, 50.0), 50u);
  EXPECT_EQ(nearest_rank(samples, 99.0), 99u);
  EXPECT_EQ(nearest_rank(samples, 99.9), 100u);
  EXPECT_EQ(nearest_rank(samples, 100.0), 100u);
  EXPECT_EQ(nearest_rank(samples, 0.5), 1u);
}

TEST(StorageLatency, PercentilesInMicrosecondsFromShuffledNanoseconds) {
  std::vector<std::uint64_t> samples;
  for (std::uint64_t i = 1; i <= 1000; ++i) samples.push_back(i * 1000);  // 1..1000 us
  std::shuffle(samples.begin(), samples.end(), std::mt19937(7));
  const LatencyPercentiles p = latency_percentiles(samples);
  EXPECT_EQ(p.samples, 1000u);
  EXPECT_DOUBLE_EQ(p.p50_us, 500.0);
  EXPECT_DOUBLE_EQ(p.p99_us, 990.0);
  EXPECT_DOUBLE_EQ(p.p999_us, 999.0);  // rank 999 of 1000, not 1000
}

TEST(StorageLatency, OneSampleAndNone) {
  std::vector<std::uint64_t> one{2500};
  const LatencyPercentiles p = latency_percentiles(one);
  EXPECT_DOUBLE_EQ(p.p50_us, 2.5);
  EXPECT_DOUBLE_EQ(p.p999_us, 2.5);
  std::vector<std::uint64_t> none;
  const LatencyPercentiles q = latency_percentiles(none);
  EXPECT_EQ(q.samples, 0u);
  EXPECT_DOUBLE_EQ(q.p99_us, 0.0);
}

TEST(StorageLatency, TailDominatedByOutliers) {
  std::vector<std::uint64_t> samples(10000, 100000);  // 100 us
  for (int i = 0; i < 20; ++i) samples[static_cast<std::size_t>(i) * 7] = 5000000;  // 20 at 5 ms
  const LatencyPercentiles p = latency_percentiles(samples);
  EXPECT_DOUBLE_EQ(p.p50_us, 100.0);
  EXPECT_DOUBLE_EQ(p.p99_us, 100.0);
  EXPECT_DOUBLE_EQ(p.p999_us, 5000.0);  // 0.2% of samples are slow: p99.9 sees them
}

}  // namespace
}  // namespace pipecheck
