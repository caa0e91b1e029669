// JSON text with every string valid UTF-8: invalid bytes as \xHH, never U+FFFD.
#include "core/json_text.hpp"

#include "core/text_escape.hpp"

namespace pipecheck {

using nlohmann::json;

namespace {

// Only invalid UTF-8 is rewritten here: control characters are valid JSON (escaped as \u001b),
// and a string that was fine must read back as it was written.
std::string valid_utf8(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = at;
    while (end < text.size() && static_cast<unsigned char>(text[end]) < 0x80) ++end;
    out.append(text, at, end - at);
    if (end == text.size()) break;
    // A run of non-ASCII bytes: printable_text keeps what is valid UTF-8 (and escapes
    // controls, which this run cannot hold below 0x80) and writes invalid bytes as \xHH.
    std::size_t stop = end;
    while (stop < text.size() && static_cast<unsigned char>(text[stop]) >= 0x80) ++stop;
    out += printable_text(std::string_view(text).substr(end, stop - end), true);
    at = stop;
  }
  return out;
}

json repaired(const json& j) {
  if (j.is_string()) return valid_utf8(j.get_ref<const std::string&>());
  if (j.is_object()) {
    json out = json::object();
    for (const auto& [key, value] : j.items()) out[valid_utf8(key)] = repaired(value);
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& value : j) out.push_back(repaired(value));
    return out;
  }
  return j;
}

}  // namespace

std::string json_text(const json& document) {
  try {
    return document.dump(2, ' ', false, json::error_handler_t::strict);
  } catch (const json::type_error&) {  // 316: invalid UTF-8 in some string
    return repaired(document).dump(2, ' ', false, json::error_handler_t::replace);
  }
}

}  // namespace pipecheck
