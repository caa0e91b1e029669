// JSON parsed with a nesting and a size limit (core/json_input.hpp).
#include "core/json_input.hpp"

#include <string>

namespace pipecheck {

namespace {

std::string size_text(std::size_t bytes) {
  return bytes % (std::size_t{1} << 20) == 0 ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

[[noreturn]] void refuse(std::size_t byte, const std::string& why) {
  throw nlohmann::json::parse_error::create(101, byte, why, static_cast<const nlohmann::json*>(nullptr));
}

}  // namespace

std::size_t json_nesting_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

nlohmann::json parse_json(std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes) {
    refuse(0, "larger than " + size_text(max_bytes) + " (" + std::to_string(text.size()) +
                  " bytes): too large for a pipecheck document");
  }
  if (json_nesting_depth(text, kJsonMaxDepth) > kJsonMaxDepth) {
    refuse(0, "nested deeper than " + std::to_string(kJsonMaxDepth) + " levels: not a pipecheck document");
  }
  return nlohmann::json::parse(text);
}

}  // namespace pipecheck
