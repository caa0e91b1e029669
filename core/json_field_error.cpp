// The path of the field a reader was in when it failed, and the message that names it.
#include "core/json_field_error.hpp"

namespace pipecheck {

using nlohmann::json;

namespace {

// The fields entered and not yet left, innermost last; kept past an exception for the catch.
std::vector<std::string>& field_path() {
  thread_local std::vector<std::string> path;
  return path;
}

std::string path_text(const std::string& prefix) {
  std::string text = prefix;
  for (const std::string& name : field_path()) {
    if (name.empty() || name.front() != '[') {
      if (!text.empty()) text += '.';
      text += escape_name(name);
    } else {
      text += name;
    }
  }
  return text;
}

// The value the path leads to in `document`, or nullptr.
const json* value_at_path(const json& document) {
  const json* at = &document;
  for (const std::string& name : field_path()) {
    if (!name.empty() && name.front() == '[') {
      const std::size_t index = std::stoul(name.substr(1));
      if (!at->is_array() || index >= at->size()) return nullptr;
      at = &(*at)[index];
    } else {
      if (!at->is_object()) return nullptr;
      const auto it = at->find(name);
      if (it == at->end()) return nullptr;
      at = &*it;
    }
  }
  return at;
}

// nlohmann's type names as a person says them: "number" -> "a number".
std::string expected_text(const std::string& type) {
  if (type == "number") return "a number";
  if (type == "string") return "a string";
  if (type == "boolean") return "true or false";
  if (type == "array") return "an array";
  if (type == "object") return "an object";
  return type;
}

// "[json.exception.type_error.302] type must be number, but is string" -> the part after "] ".
std::string without_id(const std::string& message) {
  const auto bracket = message.find("] ");
  return bracket == std::string::npos ? message : message.substr(bracket + 2);
}

}  // namespace

FieldScope::FieldScope(std::string name) : exceptions_at_entry_(std::uncaught_exceptions()) {
  field_path().push_back(std::move(name));
}

FieldScope::~FieldScope() {
  // Left in place while an exception unwinds through it: the catch reads the path.
  if (std::uncaught_exceptions() == exceptions_at_entry_ && !field_path().empty()) field_path().pop_back();
}

void reset_field_path() { field_path().clear(); }

std::string found_text(const json& value) {
  return shortened(value.dump(-1, ' ', false, json::error_handler_t::replace), 40);
}

const json& member(const json& j, const char* key) {
  if (!j.is_object()) throw FieldError("expected an object, found " + found_text(j));
  const auto it = j.find(key);
  if (it == j.end()) throw FieldError(std::string("missing field \"") + key + "\"");
  return *it;
}

std::string field_error_text(const json& document, const std::exception& error, const std::string& prefix) {
  const std::string path = path_text(prefix);
  const std::string where = path.empty() ? "the document" : path;
  std::string text;
  const auto* json_error = dynamic_cast<const json::exception*>(&error);
  const std::string message = json_error ? without_id(error.what()) : error.what();
  if (json_error != nullptr && json_error->id == 302 && message.rfind("type must be ", 0) == 0) {
    const json* value = value_at_path(document);
    text = where + ": expected " + expected_text(message.substr(13, message.find(',') - 13)) + ", found " +
           (value ? found_text(*value) : "another type");
  } else {
    text = where + ": " + printable_text(message);
  }
  reset_field_path();
  return text;
}

}  // namespace pipecheck
