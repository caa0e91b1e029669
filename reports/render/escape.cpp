// Escaping for HTML/XML, Markdown and the Prometheus exposition format (see escape.hpp).
#include "reports/render/escape.hpp"

#include "core/text_escape.hpp"

namespace pipecheck {

std::string html_escape(std::string_view raw) {
  // Invalid UTF-8 and control characters as \xHH first (core/text_escape.hpp).
  const std::string text = printable_text(raw, true);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string xml_escape(std::string_view raw) {
  // Invalid UTF-8 and control characters as \xHH first (core/text_escape.hpp).
  const std::string text = printable_text(raw, true);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string markdown_escape(std::string_view raw) {
  // Invalid UTF-8 and control characters as \xHH first (core/text_escape.hpp).
  const std::string text = printable_text(raw, true);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '|': out += "\\|"; break;
      case '`': out += "\\`"; break;
      case '*': out += "\\*"; break;
      case '_': out += "\\_"; break;
      case '[': out += "\\["; break;
      case ']': out += "\\]"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\r': break;
      case '\n': out += ' '; break;  // a newline would end the table row
      default: out += c;
    }
  }
  return out;
}

std::string prometheus_label_escape(std::string_view raw) {
  // Invalid UTF-8 and control characters as \xHH first (core/text_escape.hpp).
  const std::string text = printable_text(raw, true);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

std::string prometheus_help_escape(std::string_view raw) {
  // Invalid UTF-8 and control characters as \xHH first (core/text_escape.hpp).
  const std::string text = printable_text(raw, true);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace pipecheck
