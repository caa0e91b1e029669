// One reader for numbers from flags and files (core/number_input.hpp).
#include "core/number_input.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

#include "core/errors.hpp"
#include "core/json_field_error.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// Built with += (GCC 12 warns falsely, -Wrestrict, on "literal" + std::string).
std::string quoted(std::string_view text) {
  std::string out = "'";
  out += shortened(text);
  out += '\'';
  return out;
}

bool is_word(std::string_view text, std::string_view word) {
  if (text.size() != word.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (static_cast<char>(text[i] | 0x20) != word[i]) return false;
  }
  return true;
}

// nan, inf and infinity in any case, with a sign: numbers strtod would take, but not finite.
bool names_a_non_finite(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  return is_word(text, "nan") || is_word(text, "inf") || is_word(text, "infinity") ||
         (text.size() > 3 && is_word(text.substr(0, 4), "nan("));
}

}  // namespace

std::string number_text(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string range_text(double low, double high) {
  const bool has_low = low > kNoLowerBound, has_high = high < kNoUpperBound;
  if (has_low && has_high) return "between " + number_text(low) + " and " + number_text(high);
  if (has_low) return "at least " + number_text(low);
  if (has_high) return "at most " + number_text(high);
  return "any finite number";
}

std::optional<double> parse_number(std::string_view text, double low, double high, std::string& why) {
  const std::string_view body = trimmed(text);
  if (names_a_non_finite(body)) {
    why = quoted(text) + " is not a finite number (" + range_text(low, high) + ")";
    return std::nullopt;
  }
  std::string_view digits = body;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || result.ec == std::errc::invalid_argument || result.ptr != digits.data() + digits.size()) {
    why = quoted(text) + " is not a number (" + range_text(low, high) + ")";
    return std::nullopt;
  }
  if (result.ec == std::errc::result_out_of_range || !std::isfinite(value) || value < low || value > high) {
    why = quoted(text) + " is not " + range_text(low, high);
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> parse_integer(std::string_view text, std::int64_t low, std::int64_t high,
                                          std::string& why) {
  const std::string range = "between " + std::to_string(low) + " and " + std::to_string(high);
  std::string_view digits = trimmed(text);
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t value = 0;
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || result.ec == std::errc::invalid_argument || result.ptr != digits.data() + digits.size()) {
    std::string ignored;
    why = quoted(text) + (parse_number(text, kNoLowerBound, kNoUpperBound, ignored) ? " is not a whole number ("
                                                                                   : " is not a number (") +
          range + ")";
    return std::nullopt;
  }
  if (result.ec == std::errc::result_out_of_range || value < low || value > high) {
    why = quoted(text) + " is not " + range;
    return std::nullopt;
  }
  return value;
}

double read_number(std::string_view text, const std::string& what, double low, double high) {
  std::string why;
  const auto value = parse_number(text, low, high, why);
  if (!value) throw UsageError(what + ": " + why);
  return *value;
}

std::int64_t read_integer(std::string_view text, const std::string& what, std::int64_t low, std::int64_t high) {
  std::string why;
  const auto value = parse_integer(text, low, high, why);
  if (!value) throw UsageError(what + ": " + why);
  return *value;
}

double json_number(const nlohmann::json& value, double low, double high) {
  if (!value.is_number()) throw FieldError("expected a number, found " + found_text(value));
  const double number = value.get<double>();
  if (!std::isfinite(number) || number < low || number > high) {
    throw FieldError("expected a number " + range_text(low, high) + ", found " + found_text(value));
  }
  return number;
}

std::int64_t json_integer(const nlohmann::json& value, std::int64_t low, std::int64_t high) {
  const std::string range = "between " + std::to_string(low) + " and " + std::to_string(high);
  if (!value.is_number()) throw FieldError("expected a number, found " + found_text(value));
  if (!value.is_number_integer()) throw FieldError("expected a whole number " + range + ", found " + found_text(value));
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (high < 0 || number > static_cast<std::uint64_t>(high) ||
        (low > 0 && number < static_cast<std::uint64_t>(low))) {
      throw FieldError("expected a whole number " + range + ", found " + found_text(value));
    }
    return static_cast<std::int64_t>(number);
  }
  const auto number = value.get<std::int64_t>();
  if (number < low || number > high) throw FieldError("expected a whole number " + range + ", found " + found_text(value));
  return number;
}

double number_field(const nlohmann::json& j, const char* key, double low, double high) {
  const nlohmann::json& value = member(j, key);
  const FieldScope scope(key);
  return json_number(value, low, high);
}

double number_field_or(const nlohmann::json& j, const char* key, double low, double high, double fallback) {
  if (!j.is_object()) throw FieldError("expected an object, found " + found_text(j));
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  const FieldScope scope(key);
  return json_number(*it, low, high);
}

std::optional<double> optional_number_field(const nlohmann::json& j, const char* key, double low, double high) {
  if (!j.is_object()) throw FieldError("expected an object, found " + found_text(j));
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  const FieldScope scope(key);
  return json_number(*it, low, high);
}

int schema_version_field(const nlohmann::json& document, int absent) {
  if (!document.is_object()) throw FieldError("expected an object, found " + found_text(document));
  const auto it = document.find("version");
  if (it == document.end()) return absent;
  const FieldScope scope("version");
  return static_cast<int>(json_integer(*it, 1, 1000000));
}

}  // namespace pipecheck
