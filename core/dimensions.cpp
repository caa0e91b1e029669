// Whole numbers and WIDTHxHEIGHT from flags (see dimensions.hpp).
#include "core/dimensions.hpp"

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

// A whole number in [1, limit] spanning all of `text`, else nullopt.
std::optional<int> parse_positive_int(const std::string& text, int limit) {
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const int value = std::stoi(text);
  if (value < 1 || value > limit) return std::nullopt;
  return value;
}

std::pair<int, int> parse_dimensions(const std::string& flag, const std::string& text) {
  const auto x = text.find_first_of("xX");
  const auto width = x == std::string::npos ? std::nullopt : parse_positive_int(text.substr(0, x), 65500);
  const auto height = x == std::string::npos ? std::nullopt : parse_positive_int(text.substr(x + 1), 65500);
  if (!width || !height) {
    throw UsageError("--" + flag + " " + shortened(text) + ": expected WIDTHxHEIGHT, e.g. 2000x1500 (1..65500)");
  }
  return {*width, *height};
}

}  // namespace pipecheck
