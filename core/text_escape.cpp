// Escaping names and text for output: strict UTF-8 (RFC 3629), \xHH for everything else.
#include "core/text_escape.hpp"

#include <cctype>
#include <cstdint>

namespace pipecheck {

namespace {

struct Decoded {
  std::size_t length = 0;  // 0: not valid UTF-8 at this position
  char32_t code_point = 0;
};

bool continuation(unsigned char byte) { return (byte & 0xc0) == 0x80; }

// The character starting at text[at], strictly: no overlongs, no surrogates, nothing past
// U+10FFFF, every continuation byte present.
Decoded decode_at(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {1, lead};
  std::size_t length = 0;
  char32_t code = 0;
  char32_t smallest = 0;
  if ((lead & 0xe0) == 0xc0) {
    length = 2, code = lead & 0x1f, smallest = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3, code = lead & 0x0f, smallest = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4, code = lead & 0x07, smallest = 0x10000;
  } else {
    return {};
  }
  if (at + length > text.size()) return {};
  for (std::size_t i = 1; i < length; ++i) {
    if (!continuation(byte(i))) return {};
    code = (code << 6) | (byte(i) & 0x3f);
  }
  if (code < smallest || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return {};
  return {length, code};
}

// Characters that are valid but must not reach a terminal or a table as they are.
bool hidden_or_control(char32_t c, bool keep_line_breaks) {
  if (keep_line_breaks && (c == '\n' || c == '\t')) return false;
  if (c < 0x20 || c == 0x7f) return true;
  if (c >= 0x80 && c <= 0x9f) return true;        // C1 controls (0x9b is a CSI on some terminals)
  if (c == 0x2028 || c == 0x2029) return true;    // line and paragraph separators
  if (c == 0x200e || c == 0x200f) return true;    // left-to-right and right-to-left marks
  if (c >= 0x202a && c <= 0x202e) return true;    // bidi embeddings and overrides
  return c >= 0x2066 && c <= 0x2069;              // bidi isolates
}

void append_hex(std::string& out, unsigned char byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += "\\x";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 0x0f];
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Walks `text` and writes each character through `keep` or as \xHH bytes; `backslash` is what
// a backslash becomes.
std::string escape(std::string_view text, bool keep_line_breaks, std::string_view backslash) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    const Decoded d = decode_at(text, at);
    if (d.length == 0) {  // one invalid byte; decoding resumes at the next
      append_hex(out, static_cast<unsigned char>(text[at]));
      ++at;
      continue;
    }
    if (hidden_or_control(d.code_point, keep_line_breaks)) {
      for (std::size_t i = 0; i < d.length; ++i) append_hex(out, static_cast<unsigned char>(text[at + i]));
    } else if (d.code_point == '\\') {
      out += backslash;
    } else {
      out.append(text.substr(at, d.length));
    }
    at += d.length;
  }
  return out;
}

}  // namespace

std::string escape_name(std::string_view bytes) { return escape(bytes, false, "\\\\"); }

std::optional<std::string> unescape_name(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (i + 3 < text.size() && text[i + 1] == 'x' && hex_value(text[i + 2]) >= 0 &&
               hex_value(text[i + 3]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 2]) * 16 + hex_value(text[i + 3]));
      i += 3;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string printable_text(std::string_view text, bool keep_line_breaks) {
  return escape(text, keep_line_breaks, "\\");
}

bool is_printable_text(std::string_view text, bool keep_line_breaks) {
  std::size_t at = 0;
  while (at < text.size()) {
    const Decoded d = decode_at(text, at);
    if (d.length == 0 || hidden_or_control(d.code_point, keep_line_breaks)) return false;
    at += d.length;
  }
  return true;
}

std::string sanitize_json_bytes(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  std::size_t at = 0;
  while (at < json.size()) {
    const Decoded d = decode_at(json, at);
    const bool whitespace = d.length == 1 && (d.code_point == '\n' || d.code_point == '\t' || d.code_point == '\r');
    if (d.length == 0 || (!whitespace && hidden_or_control(d.code_point, false))) {
      const std::size_t count = d.length == 0 ? 1 : d.length;
      for (std::size_t i = 0; i < count; ++i) {
        out += '\\';  // JSON's escaped backslash: the string then holds \xHH
        append_hex(out, static_cast<unsigned char>(json[at + i]));
      }
      at += count;
      continue;
    }
    out.append(json.substr(at, d.length));
    at += d.length;
  }
  return out;
}

std::string shortened(std::string_view text, std::size_t limit) {
  const std::string clean = printable_text(text);
  if (clean.size() <= limit) return clean;
  std::size_t cut = limit;
  // Never cut inside a \xHH escape or a UTF-8 character.
  while (cut > 0 && (static_cast<unsigned char>(clean[cut]) & 0xc0) == 0x80) --cut;
  const std::size_t escape_start = clean.rfind("\\x", cut);
  if (escape_start != std::string::npos && cut < escape_start + 4 && cut > escape_start) cut = escape_start;
  return clean.substr(0, cut) + "... (" + std::to_string(text.size()) + " characters)";
}

std::string message_line(std::string_view text) {
  const std::string clean = printable_text(text);
  constexpr std::size_t kLongest = 24;
  std::string out;
  std::size_t at = 0;
  while (at < clean.size()) {
    if (!std::isdigit(static_cast<unsigned char>(clean[at]))) {
      out += clean[at++];
      continue;
    }
    std::size_t end = at;
    while (end < clean.size() && std::isdigit(static_cast<unsigned char>(clean[end]))) ++end;
    if (end - at > kLongest) {
      out.append(clean, at, 22);
      out += "...(" + std::to_string(end - at) + " digits)";
    } else {
      out.append(clean, at, end - at);
    }
    at = end;
  }
  return out;
}

}  // namespace pipecheck
