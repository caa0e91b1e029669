// Thread counts and flag parsing for the decode probe.
#include "decode/jpeg_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

std::vector<int> power_of_two_threads(int max_threads) {
  std::vector<int> counts;
  for (int n = 1; n < max_threads; n *= 2) counts.push_back(n);
  counts.push_back(std::max(1, max_threads));
  return counts;
}

namespace {

// A whole number in [1, limit] spanning all of `text`, else nullopt.
std::optional<int> parse_positive(const std::string& text, int limit) {
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const int value = std::stoi(text);
  if (value < 1 || value > limit) return std::nullopt;
  return value;
}

}  // namespace

std::vector<int> parse_thread_counts(const std::string& text) {
  const auto bad = [&] {
    return UsageError("--threads " + shortened(text) + ": expected a thread count (e.g. 8) or a list (1,2,8)");
  };
  if (text.find(',') == std::string::npos) {
    const auto max = parse_positive(text, 4096);
    if (!max) throw bad();
    return power_of_two_threads(*max);
  }
  std::vector<int> counts;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    const auto n = parse_positive(item, 4096);
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

std::pair<int, int> parse_dimensions(const std::string& flag, const std::string& text) {
  const auto x = text.find_first_of("xX");
  const auto width = x == std::string::npos ? std::nullopt : parse_positive(text.substr(0, x), 65500);
  const auto height = x == std::string::npos ? std::nullopt : parse_positive(text.substr(x + 1), 65500);
  if (!width || !height) {
    throw UsageError("--" + flag + " " + shortened(text) + ": expected WIDTHxHEIGHT, e.g. 2000x1500 (1..65500)");
  }
  return {*width, *height};
}

}  // namespace pipecheck
