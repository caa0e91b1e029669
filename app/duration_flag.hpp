// Durations on the command line ("90", "90s", "10m", "2h", "1.5m"), shared by stress and watch.
#pragma once

#include <optional>
#include <string>

namespace pipecheck {

// A year: longer is a typo, and nan/inf are not durations at all.
constexpr double kLongestDurationSeconds = 366.0 * 24 * 3600;

// "90" and "90s" -> 90, "10m" -> 600, "2h" -> 7200, "1.5m" -> 90; nullopt for anything else
// (nan, inf, negative, longer than kLongestDurationSeconds).
std::optional<double> parse_duration_seconds(const std::string& text);

// A positive duration in seconds, or UsageError naming the flag and what it got.
double duration_flag(const std::string& flag, const std::string& text);

}  // namespace pipecheck
