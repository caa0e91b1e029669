// The median's confidence interval from order statistics, and the noise figure built on it.
#include "core/median_interval.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(MedianInterval, BinomialTailIsExact) {
  EXPECT_DOUBLE_EQ(binomial_half_cdf(5, 0), 1.0 / 32);
  EXPECT_NEAR(binomial_half_cdf(6, 1), 7.0 / 64, 1e-15);
  EXPECT_NEAR(binomial_half_cdf(10, 5), 638.0 / 1024, 1e-15);
  EXPECT_DOUBLE_EQ(binomial_half_cdf(10, -1), 0.0);
  EXPECT_DOUBLE_EQ(binomial_half_cdf(10, 10), 1.0);
  EXPECT_NEAR(binomial_half_cdf(2000, 1000), 0.5 + 0.5 * 0.0178390, 1e-6);  // no overflow at 2000
}

TEST(MedianInterval, FewRepetitionsUseMinAndMaxWithTheirCoverage) {
  const auto five = median_interval({5, 1, 4, 2, 3});
  ASSERT_TRUE(five);
  EXPECT_DOUBLE_EQ(five->low, 1);
  EXPECT_DOUBLE_EQ(five->high, 5);
  EXPECT_DOUBLE_EQ(five->coverage, 1 - 2.0 / 32);  // 0.9375: no 95% interval from 5
  EXPECT_DOUBLE_EQ(median_interval({1, 2, 3})->coverage, 0.75);
  EXPECT_FALSE(median_interval({7}));
  EXPECT_FALSE(median_interval({}));
}

TEST(MedianInterval, MoreRepetitionsNarrowTheIntervalAtNinetyFivePercent) {
  std::vector<double> values;
  for (int i = 1; i <= 20; ++i) values.push_back(i);
  const auto interval = median_interval(values);
  ASSERT_TRUE(interval);
  // n = 20: order statistics 6 and 15 cover 95.9%; 7 and 14 only 88.5%.
  EXPECT_DOUBLE_EQ(interval->low, 6);
  EXPECT_DOUBLE_EQ(interval->high, 15);
  EXPECT_GE(interval->coverage, 0.95);
  EXPECT_NEAR(interval->coverage, 1 - 2 * binomial_half_cdf(20, 5), 1e-12);
  const auto six = median_interval({1, 2, 3, 4, 5, 6});
  EXPECT_DOUBLE_EQ(six->low, 1);
  EXPECT_GE(six->coverage, 0.95);
}

TEST(MedianInterval, NoiseIsHalfTheWidthInPercentOfTheMedian) {
  EXPECT_DOUBLE_EQ(*median_noise_percent({98, 100, 102, 99, 101}), 2.0);
  EXPECT_DOUBLE_EQ(*median_noise_percent({-98, -100, -102}), 2.0);  // of |median|
  EXPECT_FALSE(median_noise_percent({100}));
  EXPECT_FALSE(median_noise_percent({0, 0, 0}));
  // One wild repetition of 20 does not widen it: order statistics, not the range.
  std::vector<double> values(19, 100.0);
  values.push_back(10000);
  EXPECT_DOUBLE_EQ(*median_noise_percent(values), 0.0);
}

}  // namespace
}  // namespace pipecheck
