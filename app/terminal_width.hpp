// How wide the terminal summary is drawn: `--width N`, else $COLUMNS, else the width of the
// terminal stdout is, else 100 columns (a log file or a pipe).
#pragma once

#include <optional>

namespace pipecheck {

// A COLUMNS value that is not a positive number is ignored (shells export odd things).
int summary_width(std::optional<int> flag, const char* columns_env, std::optional<int> terminal_columns);

// The columns of the terminal on stdout; empty when stdout is not a terminal.
std::optional<int> stdout_terminal_columns();

}  // namespace pipecheck
