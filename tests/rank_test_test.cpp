// Mann-Whitney U (exact, with ties) checked against a brute-force count of every way the pooled
// values could have been split, and Benjamini-Hochberg against a worked example.
#include "compare/rank_test.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace pipecheck {
namespace {

// Two-sided p by enumerating every subset of the pooled values of a's size (rank sums with midranks).
double brute_force_p(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const std::size_t n = pooled.size();
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n; ++i) {
    double below = 0, equal = 0;
    for (double v : pooled) {
      below += v < pooled[i];
      equal += v == pooled[i];
    }
    rank[i] = below + (equal + 1) / 2;
  }
  double observed = 0;
  for (std::size_t i = 0; i < a.size(); ++i) observed += rank[i];
  double low = 0, high = 0, all = 0;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != a.size()) continue;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask & (1u << i)) sum += rank[i];
    }
    all += 1;
    low += sum <= observed + 1e-9;
    high += sum >= observed - 1e-9;
  }
  return std::min(1.0, 2 * std::min(low, high) / all);
}

TEST(MannWhitney, DisjointSamplesGiveTheSmallestP) {
  EXPECT_NEAR(mann_whitney({1, 2, 3}, {4, 5, 6}).p_value, 0.1, 1e-12);
  EXPECT_NEAR(mann_whitney({10, 11, 12, 13, 14}, {1, 2, 3, 4, 5}).p_value, 2.0 / 252, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney({10, 11, 12, 13, 14}, {1, 2, 3, 4, 5}).u, 0);
  EXPECT_NEAR(smallest_p_value(5, 5), 2.0 / 252, 1e-12);
  EXPECT_NEAR(smallest_p_value(3, 3), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(smallest_p_value(0, 3), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney({}, {1, 2}).p_value, 1.0);
}

TEST(MannWhitney, ExactMatchesBruteForceWithAndWithoutTies) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> value(0, 6);  // few distinct values: many ties
  for (int trial = 0; trial < 200; ++trial) {
    const int na = 1 + trial % 6, nb = 1 + (trial / 6) % 7;
    std::vector<double> a, b;
    for (int i = 0; i < na; ++i) a.push_back(value(random) + (trial % 2 ? 0.5 * i : 0));
    for (int i = 0; i < nb; ++i) b.push_back(value(random));
    const RankTestResult result = mann_whitney(a, b);
    EXPECT_TRUE(result.exact);
    EXPECT_NEAR(result.p_value, brute_force_p(a, b), 1e-9) << "trial " << trial;
    EXPECT_NEAR(result.p_value, mann_whitney(b, a).p_value, 1e-9) << "two-sided: order does not matter";
  }
}

TEST(MannWhitney, IdenticalSamplesAreNoEvidence) {
  EXPECT_DOUBLE_EQ(mann_whitney({5, 5, 5}, {5, 5, 5}).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney({1, 2, 3, 4}, {1, 2, 3, 4}).p_value, 1.0);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> a, b, c;
  for (int i = 0; i < 40; ++i) {
    a.push_back(100 + i % 7);
    b.push_back(90 + i % 7);
    c.push_back(100 + (i * 3) % 7);
  }
  const RankTestResult shifted = mann_whitney(a, b);
  EXPECT_FALSE(shifted.exact);
  EXPECT_LT(shifted.p_value, 1e-10);
  EXPECT_GT(mann_whitney(a, c).p_value, 0.5);  // the same values in another order
}

TEST(BenjaminiHochberg, AdjustsAndKeepsOrder) {
  const std::vector<double> q = benjamini_hochberg({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(q.size(), 4u);
  EXPECT_NEAR(q[0], 0.02, 1e-12);
  EXPECT_NEAR(q[1], 0.04, 1e-12);
  EXPECT_NEAR(q[2], 0.04, 1e-12);
  EXPECT_NEAR(q[3], 0.02, 1e-12);
  // Never above the q of a larger p: 0.01 x 2 / 1 would be 0.02, but 0.012's q is 0.012.
  EXPECT_DOUBLE_EQ(benjamini_hochberg({0.01, 0.012})[0], 0.012);
  // One small p among many: not a discovery at 0.05.
  std::vector<double> many(20, 0.8);
  many[3] = 2.0 / 252;
  EXPECT_GT(benjamini_hochberg(many)[3], 0.05);
  EXPECT_TRUE(benjamini_hochberg({}).empty());
  EXPECT_DOUBLE_EQ(benjamini_hochberg({0.9, 0.95})[1], 0.95);
}

}  // namespace
}  // namespace pipecheck
