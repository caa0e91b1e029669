// Plain-text layout for the terminal renderers: widths counted in characters on screen (UTF-8
// code points, not bytes) and word wrapping that never drops a character, so nothing that
// tells two rows apart is ever cut.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pipecheck {

// Characters on screen: UTF-8 continuation bytes do not count.
std::size_t display_width(std::string_view text);

// The words of `text` in lines of at most `width` characters; a word longer than a line is split
// between characters (never inside a UTF-8 sequence). Always at least one line ("" for no words).
std::vector<std::string> wrap_words(std::string_view text, std::size_t width);

// `text` wrapped to `width` characters a line, the first line after `first`, the others after
// `rest` (prefixes count towards the width); each line ends in '\n'.
std::string wrap_text(std::string_view text, const std::string& first, const std::string& rest, std::size_t width);

// Padded with spaces to `width` characters (never cut).
std::string pad_right(const std::string& text, std::size_t width);
std::string pad_left(const std::string& text, std::size_t width);

}  // namespace pipecheck
