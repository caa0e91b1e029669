// RFC 4180 quoting (see csv_field.hpp).
#include "core/csv_field.hpp"

#include <stdexcept>

namespace pipecheck {

std::string csv_field(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string field = "\"";
  for (char c : text) {
    if (c == '"') field += '"';
    field += c;
  }
  return field + "\"";
}

std::vector<std::string> parse_csv_line(std::string_view line, char separator) {
  std::vector<std::string> fields(1);
  std::size_t at = 0;
  while (at <= line.size()) {
    std::string& field = fields.back();
    if (at < line.size() && line[at] == '"' ) {
      // Quoted: up to the quote not followed by another quote.
      ++at;
      while (true) {
        if (at >= line.size()) throw std::invalid_argument("a quoted field is not closed");
        if (line[at] == '"') {
          if (at + 1 < line.size() && line[at + 1] == '"') {
            field += '"';
            at += 2;
            continue;
          }
          ++at;
          break;
        }
        field += line[at++];
      }
      if (at < line.size() && line[at] != separator) throw std::invalid_argument("text after a closing quote");
    } else {
      while (at < line.size() && line[at] != separator) field += line[at++];
    }
    if (at >= line.size()) break;
    ++at;  // the separator
    fields.emplace_back();
  }
  return fields;
}

}  // namespace pipecheck
