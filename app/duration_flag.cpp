// Parsing durations given on the command line.
#include "app/duration_flag.hpp"

#include <cmath>
#include <cstdlib>

#include "core/errors.hpp"

namespace pipecheck {

std::optional<double> parse_duration_seconds(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  // strtod also takes "nan", "inf" and 1e300: none is a duration a run could wait out.
  if (end == text.c_str() || !std::isfinite(value) || value < 0 || value > kLongestDurationSeconds) {
    return std::nullopt;
  }
  const std::string unit(end);
  double seconds = -1;
  if (unit.empty() || unit == "s") seconds = value;
  if (unit == "m" || unit == "min") seconds = value * 60;
  if (unit == "h") seconds = value * 3600;
  if (seconds < 0 || seconds > kLongestDurationSeconds) return std::nullopt;
  return seconds;
}

double duration_flag(const std::string& flag, const std::string& text) {
  const auto seconds = parse_duration_seconds(text);
  if (!seconds || *seconds <= 0) {
    throw UsageError(flag + ": '" + text + "' is not a duration (e.g. 0.5, 90s, 10m, 2h)");
  }
  return *seconds;
}

}  // namespace pipecheck
