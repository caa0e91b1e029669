// Thread scaling taken pair by pair over interleaved repetitions, and the % of ceiling with its
// spread for every other figure.
#include "ceilings/scaling_pairs.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

Measurement decode(int threads, std::vector<double> reps, bool interleaved = true) {
  Measurement m;
  m.key = "decode/full/threads:" + std::to_string(threads);
  m.stage = "decode";
  m.unit = "images/s";
  m.params = {{"threads", std::to_string(threads)}};
  m.repetitions = reps;
  m.interleaved = interleaved;
  m.stats = summarize(reps);
  attach_spread(m);
  return m;
}

Ceiling linear(double value) { return {value, "images/s", "linear scaling", "N x the 1-thread median"}; }

TEST(ScalingPairs, EfficiencyIsTakenPairByPair) {
  // The machine slowed down half-way through: both thread counts saw it in the same rounds.
  const Measurement one = decode(1, {100, 100, 50, 50, 100});
  const Measurement two = decode(2, {180, 180, 90, 90, 180});
  const auto pairs = pair_efficiencies(one, two, 2);
  ASSERT_EQ(pairs.size(), 5u);
  for (double e : pairs) EXPECT_DOUBLE_EQ(e, 0.9);
  EXPECT_TRUE(pair_efficiencies(one, decode(2, {1, 2, 3, 4}), 2).empty()) << "different counts";
  EXPECT_TRUE(pair_efficiencies(one, decode(2, {180, 180, 90, 90, 180}, false), 2).empty()) << "not interleaved";
  EXPECT_TRUE(pair_efficiencies(decode(1, {0, 1, 1, 1, 1}), two, 2).empty()) << "a zero rate";
}

TEST(ScalingPairs, PercentOfCeilingFromPairsWhenThereArePairs) {
  std::vector<Measurement> all = {decode(1, {100, 100, 50, 50, 100}), decode(2, {180, 180, 90, 90, 180})};
  all[1].ceiling = CeilingResult::known(linear(200));  // 2 x the 1-thread median
  attach_percentages(all);
  ASSERT_TRUE(all[1].percent_of_ceiling);
  EXPECT_DOUBLE_EQ(*all[1].percent_of_ceiling, 90.0);  // the medians alone would say 180 / 200
  EXPECT_DOUBLE_EQ(*all[1].percent_low, 90.0);
  EXPECT_DOUBLE_EQ(*all[1].percent_high, 90.0);
  EXPECT_NE(all[1].ceiling.ceiling->derivation.find("pair-by-pair"), std::string::npos);
  // Not interleaved (an older run): the medians, and their interval for the spread.
  std::vector<Measurement> old = {decode(1, {100, 100, 50, 50, 100}, false), decode(2, {180, 170, 90, 95, 185}, false)};
  old[1].ceiling = CeilingResult::known(linear(200));
  attach_percentages(old);
  EXPECT_DOUBLE_EQ(*old[1].percent_of_ceiling, 85.0);
  EXPECT_DOUBLE_EQ(*old[1].percent_low, 45.0);
  EXPECT_DOUBLE_EQ(*old[1].percent_high, 92.5);
}

TEST(ScalingPairs, OtherFiguresGetTheirMedianAndSpread) {
  Measurement m;
  m.key = "hostmem/read/threads:2";
  m.unit = "GB/s";
  m.repetitions = {9, 10, 11};
  m.stats = summarize(m.repetitions);
  attach_spread(m);
  m.ceiling = CeilingResult::known({20, "GB/s", "theoretical", "x"});
  std::vector<Measurement> all = {m};
  attach_percentages(all);
  EXPECT_DOUBLE_EQ(*all[0].percent_of_ceiling, 50.0);
  EXPECT_DOUBLE_EQ(*all[0].percent_low, 45.0);
  EXPECT_DOUBLE_EQ(*all[0].percent_high, 55.0);
  all[0].ceiling = CeilingResult::known({20, "TFLOP/s", "theoretical", "x"});
  attach_percentages(all);
  EXPECT_FALSE(all[0].percent_of_ceiling) << "a ceiling in another unit gives no %";
}

}  // namespace
}  // namespace pipecheck
