// One reader for numbers that come from outside the program: flags, profile lines, JSON fields,
// CSV cells. A number is taken only whole (no trailing text; an integer never truncated to a
// narrower type), finite (nan and inf pass every comparison, so a range check alone lets them
// through), and in its range; the error says which, with the range as people write it
// ("between 0 and 100", "at least 0"), never a 309-digit bound.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pipecheck {

// No bound on that side.
constexpr double kNoUpperBound = std::numeric_limits<double>::max();
constexpr double kNoLowerBound = -std::numeric_limits<double>::max();

// The largest figure any measurement or ceiling in pipecheck's units can take (GB/s, TFLOP/s,
// images/s, IOPS, %): far above any machine, far below what overflows to inf when rendered.
constexpr double kLargestFigure = 1e15;

// A number as people read it: "100", "0.5", "1e+15".
std::string number_text(double value);

// "between 0 and 100", "at least 0", "at most 5", "any finite number".
std::string range_text(double low, double high);

// The number `text` holds, or nullopt with `why` set: "'abc' is not a number", "'nan' is not a
// finite number", "'-1' is not between 0 and 100". Leading and trailing blanks are allowed.
std::optional<double> parse_number(std::string_view text, double low, double high, std::string& why);

// A whole number (no fraction, no exponent) within [low, high]; "'1.5' is not a whole number",
// "'4294967298' is not between 1 and 2".
std::optional<std::int64_t> parse_integer(std::string_view text, std::int64_t low, std::int64_t high,
                                          std::string& why);

// The same, throwing UsageError "<what>: <why>".
double read_number(std::string_view text, const std::string& what, double low, double high);
std::int64_t read_integer(std::string_view text, const std::string& what, std::int64_t low, std::int64_t high);

// A JSON value read as a number in [low, high]; FieldError (core/json_field_error.hpp) naming
// what was found otherwise, so read_fields names the file and the field.
double json_number(const nlohmann::json& value, double low, double high);
std::int64_t json_integer(const nlohmann::json& value, std::int64_t low, std::int64_t high);

// The member `key` of `j` read by json_number / json_integer, in its field scope; `fallback` when
// absent (the _or forms) or null.
double number_field(const nlohmann::json& j, const char* key, double low, double high);
double number_field_or(const nlohmann::json& j, const char* key, double low, double high, double fallback);
std::optional<double> optional_number_field(const nlohmann::json& j, const char* key, double low, double high);

// A document's schema "version": a whole number from 1 (absent: `absent`). Newer than `ours` is
// the caller's to judge (check_schema_version); what is no version at all is refused here.
int schema_version_field(const nlohmann::json& document, int absent = 1);

}  // namespace pipecheck
