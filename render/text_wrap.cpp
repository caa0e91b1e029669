// Terminal text layout (see text_wrap.hpp).
#include "render/text_wrap.hpp"

#include <algorithm>

#include "core/text_escape.hpp"

namespace pipecheck {

namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The byte offset after the first `count` characters of `text`.
std::size_t byte_offset(std::string_view text, std::size_t count) {
  std::size_t at = 0;
  for (std::size_t seen = 0; at < text.size() && seen < count; ++seen) {
    ++at;
    while (at < text.size() && is_continuation(text[at])) ++at;
  }
  return at;
}

std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n' || text[at] == '\t')) ++at;
    std::size_t end = at;
    while (end < text.size() && text[end] != ' ' && text[end] != '\n' && text[end] != '\t') ++end;
    if (end > at) words.push_back(text.substr(at, end - at));
    at = end;
  }
  return words;
}

}  // namespace

std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation(c); }));
}

std::vector<std::string> wrap_words(std::string_view raw, std::size_t width) {
  // Every byte that reaches the terminal from outside (a label, a recorded host name, a report
  // someone edited) is written by the one policy: ESC, C1 (0x9b), bidi overrides as \xHH.
  const std::string text = printable_text(raw, true);
  width = std::max<std::size_t>(width, 1);
  std::vector<std::string> lines;
  std::string line;
  std::size_t used = 0;
  for (std::string_view word : words_of(text)) {
    std::size_t length = display_width(word);
    if (used > 0 && used + 1 + length > width) {
      lines.push_back(line);
      line.clear();
      used = 0;
    }
    if (used > 0) {
      line += ' ';
      ++used;
    }
    // A word longer than a whole line is split: every character is kept.
    while (used + length > width) {
      const std::size_t take = byte_offset(word, width - used);
      line += word.substr(0, take);
      lines.push_back(line);
      line.clear();
      used = 0;
      word.remove_prefix(take);
      length = display_width(word);
    }
    line += word;
    used += length;
  }
  lines.push_back(line);
  return lines;
}

std::string wrap_text(std::string_view raw, const std::string& first, const std::string& rest, std::size_t width) {
  const std::string text = printable_text(raw, true);  // as in wrap_words
  // The first line's room is after `first`, the others' after `rest`.
  auto room = [&](bool first_line) {
    const std::size_t prefix = display_width(first_line ? first : rest);
    return width > prefix ? width - prefix : 1;
  };
  std::string out;
  std::string line;
  std::size_t used = 0;
  bool first_line = true;
  auto finish = [&]() {
    out += (first_line ? first : rest) + line + "\n";
    line.clear();
    used = 0;
    first_line = false;
  };
  for (std::string_view word : words_of(text)) {
    std::size_t length = display_width(word);
    if (used > 0 && used + 1 + length > room(first_line)) finish();
    if (used > 0) {
      line += ' ';
      ++used;
    }
    // A word longer than a whole line is split: every character is kept.
    while (used + length > room(first_line)) {
      const std::size_t take = byte_offset(word, room(first_line) - used);
      line += word.substr(0, take);
      finish();
      word.remove_prefix(take);
      length = display_width(word);
    }
    line += word;
    used += length;
  }
  finish();
  return out;
}

std::string pad_right(const std::string& raw, std::size_t width) {
  const std::string text = printable_text(raw);
  const std::size_t used = display_width(text);
  return used >= width ? text : text + std::string(width - used, ' ');
}

std::string pad_left(const std::string& raw, std::size_t width) {
  const std::string text = printable_text(raw);
  const std::size_t used = display_width(text);
  return used >= width ? text : std::string(width - used, ' ') + text;
}

}  // namespace pipecheck
