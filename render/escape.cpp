// Escaping for HTML/XML, Markdown and the Prometheus exposition format (see escape.hpp).
#include "render/escape.hpp"

#include "core/text_escape.hpp"

namespace pipecheck {

namespace {

// Invalid UTF-8 and control characters as \xHH first (core/text_escape.hpp), then each
// character the format reserves as `replacement` names it (nullptr: the character itself).
template <typename Replacement>
std::string escaped(std::string_view raw, Replacement replacement) {
  const std::string text = printable_text(raw, true);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    if (const char* instead = replacement(c)) {
      out += instead;
    } else {
      out += c;
    }
  }
  return out;
}

// The markup entities HTML and XML share; the apostrophe is each format's own.
const char* markup_entity(char c, const char* apostrophe) {
  switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return apostrophe;
    default: return nullptr;
  }
}

}  // namespace

std::string html_escape(std::string_view raw) {
  return escaped(raw, [](char c) { return markup_entity(c, "&#39;"); });
}

std::string xml_escape(std::string_view raw) {
  return escaped(raw, [](char c) { return markup_entity(c, "&apos;"); });
}

std::string markdown_escape(std::string_view raw) {
  return escaped(raw, [](char c) -> const char* {
    switch (c) {
      case '\\': return "\\\\";
      case '|': return "\\|";
      case '`': return "\\`";
      case '*': return "\\*";
      case '_': return "\\_";
      case '[': return "\\[";
      case ']': return "\\]";
      case '<': return "&lt;";
      case '>': return "&gt;";
      case '&': return "&amp;";
      case '\r': return "";
      case '\n': return " ";  // a newline would end the table row
      default: return nullptr;
    }
  });
}

std::string prometheus_label_escape(std::string_view raw) {
  return escaped(raw, [](char c) -> const char* {
    switch (c) {
      case '\\': return "\\\\";
      case '"': return "\\\"";
      case '\n': return "\\n";
      default: return nullptr;
    }
  });
}

std::string prometheus_help_escape(std::string_view raw) {
  return escaped(raw, [](char c) -> const char* {
    switch (c) {
      case '\\': return "\\\\";
      case '\n': return "\\n";
      default: return nullptr;
    }
  });
}

}  // namespace pipecheck
