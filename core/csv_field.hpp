// RFC 4180 fields for the CSV records pipecheck appends (watch.csv): a field holding a comma, a
// double quote, a line break or an edge space is quoted, its quotes doubled, so a process named
// `my,pr"oc` is written and read back as itself. Control characters are not this file's job:
// names are escaped before (escape_name, core/text_escape.hpp), so a record stays one line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipecheck {

// The field as it goes into a line: as is, or "quoted" with "" for each ".
std::string csv_field(std::string_view text);

// The fields of one line, quoting undone; "" is one empty field. Throws std::invalid_argument
// for a quote that is not closed or text after a closing quote.
std::vector<std::string> parse_csv_line(std::string_view line, char separator = ',');

}  // namespace pipecheck
