// The terminal summary's width (see terminal_width.hpp).
#include "app/terminal_width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstring>

#include "render/summary_table.hpp"

namespace pipecheck {

namespace {

std::optional<int> positive_number(const char* text) {
  if (text == nullptr) return std::nullopt;
  const char* end = text + std::strlen(text);
  int value = 0;
  const auto [at, error] = std::from_chars(text, end, value);
  if (error != std::errc() || at != end || value <= 0) return std::nullopt;
  return value;
}

}  // namespace

int summary_width(std::optional<int> flag, const char* columns_env, std::optional<int> terminal_columns) {
  if (flag) return *flag;
  if (auto columns = positive_number(columns_env)) return *columns;
  if (terminal_columns && *terminal_columns > 0) return *terminal_columns;
  return kDefaultSummaryWidth;
}

std::optional<int> stdout_terminal_columns() {
  if (!isatty(STDOUT_FILENO)) return std::nullopt;
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return std::nullopt;
  return static_cast<int>(size.ws_col);
}

}  // namespace pipecheck
