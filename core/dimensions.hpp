// Whole numbers and WIDTHxHEIGHT as flags give them (the driver's --decode-size, the decode
// probe's --size and --train-size).
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace pipecheck {

// A whole number in [1, limit] spanning all of `text`, else nullopt.
std::optional<int> parse_positive_int(const std::string& text, int limit);

// "2000x1500" -> {2000, 1500}; throws UsageError naming `flag` and the text when malformed.
std::pair<int, int> parse_dimensions(const std::string& flag, const std::string& text);

}  // namespace pipecheck
