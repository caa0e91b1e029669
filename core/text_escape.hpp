// The one escaping policy for text from outside pipecheck (file and folder names, paths, process
// names, command lines, a probe's stderr) on every output: JSON, CSV, terminal, HTML, messages.
// A name on Linux is any bytes but '/' and NUL; output must stay valid UTF-8, must not carry
// terminal escapes, and two different names must never look alike. So:
//   - valid UTF-8 passes as it is (accents, CJK, emoji);
//   - each byte of invalid UTF-8 (0xff, a lone Latin-1 0xe9, overlongs, surrogates) and each
//     control character (C0 0x00-0x1f, DEL 0x7f, C1 U+0080-U+009F) and each character that
//     reorders or splits a line (U+2028, U+2029, bidi controls U+200E, U+200F, U+202A-U+202E,
//     U+2066-U+2069) is written as \xHH, one per byte, lower-case hex;
//   - in escape_name, a backslash is written as \\ so the mapping is injective and
//     unescape_name gives back the exact bytes.
// Example: "caf\xe9\x1b[31m a\b" (bytes) -> `caf\xe9\x1b[31m a\\b`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pipecheck {

// A name from the system, escaped: the form it takes in every output. Injective.
std::string escape_name(std::string_view bytes);
// The bytes back from escape_name's text; nullopt when `text` is not such a text (a lone
// backslash, \x without two hex digits).
std::optional<std::string> unescape_name(std::string_view text);

// The safety net for text that is already pipecheck's own words around escaped names, or that
// came from another program (a probe's stderr): invalid UTF-8 and the characters above become
// \xHH, backslashes stay as they are. On text that needs nothing it changes nothing, so it can be
// applied at every output without escaping twice. `keep_line_breaks` keeps '\n' and '\t' (for
// renderers of multi-line text); otherwise they are escaped too (a one-line message stays one).
std::string printable_text(std::string_view text, bool keep_line_breaks = false);

// Whether printable_text would change nothing.
bool is_printable_text(std::string_view text, bool keep_line_breaks = false);

// A JSON text from another program with raw control bytes or invalid UTF-8 inside its strings
// (Google Benchmark writes labels and errors unescaped): each such byte becomes the JSON text
// \\xHH, so the document parses and the string reads as printable_text would write it. JSON's
// own whitespace (tab, newline, carriage return) is left alone.
std::string sanitize_json_bytes(std::string_view json);

// A user's value echoed in a message, cut to `limit` characters with its length said
// ("99999999999999999999... (309 characters)"), and printable.
std::string shortened(std::string_view text, std::size_t limit = 40);

// An error message as a command prints it: printable (one line) and every run of more than 24
// digits (a 309-digit range bound, an echoed huge value) cut to its first digits and its length:
// "1797693134862315708145...(309 digits)".
std::string message_line(std::string_view text);

}  // namespace pipecheck
