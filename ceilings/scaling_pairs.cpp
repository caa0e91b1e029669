// Pair-by-pair scaling efficiency and the % of ceiling with its spread.
#include "ceilings/scaling_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/median_interval.hpp"
#include "core/figure_text.hpp"

namespace pipecheck {

namespace {

// "decode/full/threads:8" -> "decode/full/threads:1".
std::string one_thread_key(const std::string& key) {
  const auto at = key.rfind("threads:");
  if (at == std::string::npos) return "";
  const auto end = key.find('/', at);
  return key.substr(0, at) + "threads:1" + (end == std::string::npos ? "" : key.substr(end));
}

// The measurements by key, built once: a search per measurement made a large report quadratic.
using ByKey = std::map<std::string, const Measurement*>;

const Measurement* find_key(const ByKey& all, const std::string& key) {
  const auto it = all.find(key);
  return it == all.end() ? nullptr : it->second;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// From the median and its interval held against the ceiling.
void percent_from_median(Measurement& m, double ceiling) {
  m.percent_of_ceiling = 100.0 * m.stats.median / ceiling;
  if (m.median_interval) {
    m.percent_low = 100.0 * m.median_interval->low / ceiling;
    m.percent_high = 100.0 * m.median_interval->high / ceiling;
  }
}

bool percent_from_pairs(Measurement& m, const ByKey& all) {
  const Measurement* one = find_key(all, one_thread_key(m.key));
  const int threads = int_param(m.params, "threads", 0);
  if (one == nullptr || threads < 2) return false;
  const std::vector<double> pairs = pair_efficiencies(*one, m, threads);
  if (pairs.empty()) return false;
  m.percent_of_ceiling = 100.0 * median_of(pairs);
  if (const auto interval = median_interval(pairs)) {
    m.percent_low = 100.0 * interval->low;
    m.percent_high = 100.0 * interval->high;
  }
  char text[160];
  std::snprintf(text, sizeof text, "; %% of ceiling: median of %zu pair-by-pair efficiencies (1 and %d threads run interleaved)",
                pairs.size(), threads);
  m.ceiling.ceiling->derivation += text;
  return true;
}

}  // namespace

std::vector<double> pair_efficiencies(const Measurement& one_thread, const Measurement& n_threads, int threads) {
  std::vector<double> pairs;
  const auto& ones = one_thread.repetitions;
  const auto& ns = n_threads.repetitions;
  if (!one_thread.interleaved || !n_threads.interleaved || ones.size() != ns.size() || ones.size() < 2 || threads < 1) {
    return pairs;
  }
  for (std::size_t i = 0; i < ones.size(); ++i) {
    if (!(ones[i] > 0) || !std::isfinite(ones[i]) || !std::isfinite(ns[i]) || ns[i] < 0) return {};
    pairs.push_back(ns[i] / (threads * ones[i]));
  }
  return pairs;
}

void attach_percentages(std::vector<Measurement>& measurements) {
  ByKey by_key;
  for (const auto& m : measurements) by_key.emplace(m.key, &m);  // the first of a key, as the search found
  for (auto& m : measurements) {
    m.percent_of_ceiling.reset();
    m.percent_low.reset();
    m.percent_high.reset();
    const auto& ceiling = m.ceiling.ceiling;
    if (!ceiling || ceiling->value <= 0 || ceiling->unit != m.unit) continue;
    if (ceiling->basis == "linear scaling" && percent_from_pairs(m, by_key)) continue;
    percent_from_median(m, ceiling->value);
  }
}

}  // namespace pipecheck
