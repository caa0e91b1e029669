// Escaping for every output format the renderers write: HTML/XML text and attributes, Markdown
// table cells, Prometheus label values and HELP text. Every machine or user string passes here,
// and first through printable_text (core/text_escape.hpp): invalid UTF-8 and control
// characters other than newline and tab become \xHH, the one policy of every output.
#pragma once

#include <string>
#include <string_view>

namespace pipecheck {

// & < > " ' as entities: safe in HTML text, in quoted attributes and in inline SVG.
std::string html_escape(std::string_view text);
// As html_escape with XML's &apos;; the control characters XML 1.0 forbids are already \xHH,
// so a stray byte from a device name cannot break the document.
std::string xml_escape(std::string_view text);
// One Markdown table cell: backslash, pipe, backtick, emphasis and link brackets escaped,
// < > & as entities (ticket systems render inline HTML), newlines as spaces.
std::string markdown_escape(std::string_view text);
// A Prometheus label value (exposition format): backslash, double quote and newline escaped.
std::string prometheus_label_escape(std::string_view text);
// Prometheus HELP text: backslash and newline escaped.
std::string prometheus_help_escape(std::string_view text);

}  // namespace pipecheck
