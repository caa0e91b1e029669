// Thread counts and flag parsing for the decode probe.
#include "decode/jpeg_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/dimensions.hpp"
#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

std::vector<int> power_of_two_threads(int max_threads) {
  std::vector<int> counts;
  for (int n = 1; n < max_threads; n *= 2) counts.push_back(n);
  counts.push_back(std::max(1, max_threads));
  return counts;
}


std::vector<int> parse_thread_counts(const std::string& text) {
  const auto bad = [&] {
    return UsageError("--threads " + shortened(text) + ": expected a thread count (e.g. 8) or a list (1,2,8)");
  };
  if (text.find(',') == std::string::npos) {
    const auto max = parse_positive_int(text, 4096);
    if (!max) throw bad();
    return power_of_two_threads(*max);
  }
  std::vector<int> counts;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    const auto n = parse_positive_int(item, 4096);
    if (!n) throw bad();
    counts.push_back(*n);
  }
  if (counts.empty() || text.back() == ',') throw bad();
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::vector<int> with_thread_count(std::vector<int> counts, int n) {
  if (std::find(counts.begin(), counts.end(), n) == counts.end()) {
    counts.insert(std::upper_bound(counts.begin(), counts.end(), n), n);
  }
  return counts;
}

std::vector<int> default_thread_counts(int cpus, ProbeMode mode) {
  if (mode != ProbeMode::quick) return power_of_two_threads(cpus);
  return cpus > 1 ? std::vector<int>{1, cpus} : std::vector<int>{1};
}

}  // namespace pipecheck
