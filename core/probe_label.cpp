// The label convention (see probe_label.hpp).
#include "core/probe_label.hpp"

#include "core/text_escape.hpp"

namespace pipecheck {

std::string encode_label(const std::map<std::string, std::string>& params) {
  std::string label;
  for (const auto& [key, value] : params) {
    if (!label.empty()) label += ';';
    std::string text = printable_text(value);
    for (std::size_t at = text.find(';'); at != std::string::npos; at = text.find(';', at + 4)) {
      text.replace(at, 1, "\\x3b");
    }
    label += key + "=" + text;
  }
  return label;
}

std::map<std::string, std::string> decode_label(const std::string& label) {
  std::map<std::string, std::string> params;
  std::size_t start = 0;
  while (start < label.size()) {
    std::size_t end = label.find(';', start);
    if (end == std::string::npos) end = label.size();
    const std::string item = label.substr(start, end - start);
    const auto eq = item.find('=');
    if (eq != std::string::npos && eq > 0) params[item.substr(0, eq)] = item.substr(eq + 1);
    start = end + 1;
  }
  return params;
}

}  // namespace pipecheck
