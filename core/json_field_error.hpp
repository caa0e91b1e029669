// Reading a document pipecheck wrote (report.json, inventory.json, baseline.json) that someone
// edited or damaged: a wrongly typed or missing field is one line naming the file and the field,
// "report.json: measurements[0].stats.median: expected a number, found \"fast\"", instead of
// nlohmann's "type must be number, but is string".
//
// Readers name the fields they enter with the helpers below (field, field_or, list_field, ...).
// Each keeps a FieldScope while it reads; a scope is left in place when an exception passes
// through it, so read_fields, which catches, finds the path of the field that failed.
#pragma once

#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

// The field being read ("median", or "[3]" for an array element), for the length of a scope.
class FieldScope {
 public:
  explicit FieldScope(std::string name);
  ~FieldScope();
  FieldScope(const FieldScope&) = delete;
  FieldScope& operator=(const FieldScope&) = delete;

 private:
  int exceptions_at_entry_;
};

// A field of the wrong kind or missing, in words: "expected an object, found \"x\"".
class FieldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "an object", "a number": what a value's JSON kind is called in messages; and the value shortened.
std::string found_text(const nlohmann::json& value);

// The member `key` of object `j`; FieldError when j is no object or lacks it.
const nlohmann::json& member(const nlohmann::json& j, const char* key);

// `value` read as T. A number is read whole or refused: nlohmann's get<int> turns 4294967298
// into 2 and 1e30 into anything, so an integer field takes only a whole number that fits T
// (bounds of their own go through core/number_input.hpp).
template <typename T>
T value_as(const nlohmann::json& value) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const std::string expected = "expected a whole number between " + std::to_string(std::numeric_limits<T>::min()) +
                                 " and " + std::to_string(std::numeric_limits<T>::max()) + ", found ";
    if (!value.is_number()) throw FieldError("expected a number, found " + found_text(value));
    if (!value.is_number_integer()) throw FieldError(expected + found_text(value));
    if (value.is_number_unsigned()) {
      if (value.template get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
        throw FieldError(expected + found_text(value));
      }
    } else {
      const auto number = value.template get<std::int64_t>();
      if (number < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
          (number > 0 && static_cast<std::uint64_t>(number) > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))) {
        throw FieldError(expected + found_text(value));
      }
    }
    return value.template get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) throw FieldError("expected a number, found " + found_text(value));
    const T number = value.template get<T>();
    if (!std::isfinite(number)) throw FieldError("expected a finite number, found " + found_text(value));
    return number;
  } else {
    return value.template get<T>();
  }
}

// A required member read as T.
template <typename T>
T field(const nlohmann::json& j, const char* key) {
  const nlohmann::json& value = member(j, key);
  const FieldScope scope(key);
  return value_as<T>(value);
}

// A member read as T, or `fallback` when it is absent (a field added by a later version).
template <typename T>
T field_or(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object()) throw FieldError("expected an object, found " + found_text(j));
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  const FieldScope scope(key);
  return value_as<T>(*it);
}
inline std::string field_or(const nlohmann::json& j, const char* key, const char* fallback) {
  return field_or<std::string>(j, key, std::string(fallback));
}

// A member that may be absent or null.
template <typename T>
void optional_field(const nlohmann::json& j, const char* key, std::optional<T>& into) {
  into.reset();
  if (!j.is_object()) throw FieldError("expected an object, found " + found_text(j));
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  const FieldScope scope(key);
  into = value_as<T>(*it);
}

// read(member) for a required object member, in its scope: nested records ("cpu", "stats").
template <typename Read>
auto in_field(const nlohmann::json& j, const char* key, Read&& read) -> decltype(read(j)) {
  const nlohmann::json& value = member(j, key);
  const FieldScope scope(key);
  return read(value);
}

// Calls read(element) for each element of the array `list`, each in its "[i]" scope.
template <typename Read>
void for_each_item(const nlohmann::json& list, Read&& read) {
  if (!list.is_array()) throw FieldError("expected an array, found " + found_text(list));
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string name = "[";  // built with += (GCC 12 warns falsely on "literal" + std::string)
    name += std::to_string(i);
    name += ']';
    const FieldScope element(std::move(name));
    read(list[i]);
  }
}

// The same for the array member `key` of object `j`.
template <typename Read>
void for_each_element(const nlohmann::json& j, const char* key, Read&& read) {
  const nlohmann::json& list = member(j, key);
  const FieldScope scope(key);
  for_each_item(list, std::forward<Read>(read));
}

// The array member `key` read as a list of T.
template <typename T>
std::vector<T> list_field(const nlohmann::json& j, const char* key) {
  std::vector<T> items;
  for_each_element(j, key, [&](const nlohmann::json& element) { items.push_back(value_as<T>(element)); });
  return items;
}

// "measurements[0].stats.median: expected a number, found \"fast\"" for an error raised while
// `document` was being read through the helpers above. `prefix` names where the document sits
// in its file ("report" inside a baseline.json).
std::string field_error_text(const nlohmann::json& document, const std::exception& error,
                             const std::string& prefix = "");

// Forgets the fields of an earlier read (the start of a new one).
void reset_field_path();

// Runs read(document) and turns a field's error (FieldError, or nlohmann's type and range
// errors) into a UsageError "<file>: <field>: expected ..., found ...". Other errors pass through.
template <typename Read>
auto read_fields(const std::filesystem::path& file, const nlohmann::json& document, Read&& read,
                 const std::string& prefix = "") -> decltype(read(document)) {
  reset_field_path();
  try {
    return std::forward<Read>(read)(document);
  } catch (const FieldError& error) {
    throw UsageError(escape_name(file.string()) + ": " + field_error_text(document, error, prefix));
  } catch (const nlohmann::json::type_error& error) {
    throw UsageError(escape_name(file.string()) + ": " + field_error_text(document, error, prefix));
  } catch (const nlohmann::json::out_of_range& error) {
    throw UsageError(escape_name(file.string()) + ": " + field_error_text(document, error, prefix));
  }
}

}  // namespace pipecheck
