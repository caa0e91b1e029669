// Mann-Whitney U and Benjamini-Hochberg (see rank_test.hpp).
#include "compare/rank_test.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace pipecheck {

namespace {

constexpr std::size_t kExactLimit = 60;

// Twice each value's midrank in the pooled sample, so ties keep whole numbers.
std::vector<long> doubled_midranks(const std::vector<double>& pooled) {
  std::vector<std::size_t> order(pooled.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return pooled[x] < pooled[y]; });
  std::vector<long> ranks(pooled.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && pooled[order[j + 1]] == pooled[order[i]]) ++j;
    const long doubled = static_cast<long>(i + 1 + j + 1);  // (first + last rank), 1-based
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = doubled;
    i = j + 1;
  }
  return ranks;
}

// P(W <= w) and P(W >= w) for W the sum of n_a of the doubled ranks drawn without replacement.
std::pair<double, double> exact_tails(const std::vector<long>& ranks, std::size_t n_a, long w) {
  const long total = std::accumulate(ranks.begin(), ranks.end(), 0L);
  // ways[k][s]: subsets of k ranks seen so far summing to s.
  std::vector<std::vector<double>> ways(n_a + 1, std::vector<double>(static_cast<std::size_t>(total) + 1, 0.0));
  ways[0][0] = 1;
  for (long r : ranks) {
    for (std::size_t k = n_a; k >= 1; --k) {
      for (long s = total; s >= r; --s) ways[k][s] += ways[k - 1][s - r];
    }
  }
  double all = 0, low = 0, high = 0;
  for (long s = 0; s <= total; ++s) {
    const double n = ways[n_a][s];
    all += n;
    if (s <= w) low += n;
    if (s >= w) high += n;
  }
  return {low / all, high / all};
}

double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

RankTestResult mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  RankTestResult result;
  if (a.empty() || b.empty()) return result;
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  const std::vector<long> ranks = doubled_midranks(pooled);
  long w = 0;  // doubled rank sum of a
  for (std::size_t i = 0; i < a.size(); ++i) w += ranks[i];
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double u_a = w / 2.0 - na * (na + 1) / 2;
  result.u = std::min(u_a, na * nb - u_a);
  if (pooled.size() <= kExactLimit) {
    const auto [low, high] = exact_tails(ranks, a.size(), w);
    result.p_value = std::min(1.0, 2 * std::min(low, high));
    result.exact = true;
    return result;
  }
  // Normal approximation: variance with the tie correction, half a step of continuity.
  const double n = na + nb;
  double ties = 0;
  std::vector<double> sorted = pooled;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[i]) ++j;
    const double t = static_cast<double>(j - i + 1);
    ties += t * t * t - t;
    i = j + 1;
  }
  const double variance = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return result;
  const double z = (std::fabs(u_a - na * nb / 2) - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, 2 * normal_upper_tail(std::max(0.0, z)));
  return result;
}

double smallest_p_value(int n_a, int n_b) {
  if (n_a < 1 || n_b < 1) return 1.0;
  double combinations = 1.0;  // C(n_a + n_b, n_a) as a product of ratios
  for (int i = 1; i <= n_a; ++i) combinations = combinations * (n_b + i) / i;
  return std::min(1.0, 2.0 / combinations);
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p_values[x] < p_values[y]; });
  std::vector<double> q(m, 1.0);
  double running = 1.0;  // from the largest p down, so q never falls as p rises
  for (std::size_t rank = m; rank >= 1; --rank) {
    const std::size_t i = order[rank - 1];
    running = std::min(running, p_values[i] * static_cast<double>(m) / static_cast<double>(rank));
    q[i] = std::min(1.0, running);
  }
  return q;
}

}  // namespace pipecheck
