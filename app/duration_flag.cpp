// Parsing durations given on the command line.
#include "app/duration_flag.hpp"

#include <cstdlib>

#include "core/errors.hpp"

namespace pipecheck {

std::optional<double> parse_duration_seconds(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || value < 0) return std::nullopt;
  const std::string unit(end);
  if (unit.empty() || unit == "s") return value;
  if (unit == "m" || unit == "min") return value * 60;
  if (unit == "h") return value * 3600;
  return std::nullopt;
}

double duration_flag(const std::string& flag, const std::string& text) {
  const auto seconds = parse_duration_seconds(text);
  if (!seconds || *seconds <= 0) {
    throw UsageError(flag + ": '" + text + "' is not a duration (e.g. 0.5, 90s, 10m, 2h)");
  }
  return *seconds;
}

}  // namespace pipecheck
