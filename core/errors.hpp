// Errors that name the call, the input and the library's own message (STYLE 5). Nothing
// below main() exits: these are thrown and turned into one line and an exit code at the top.
#pragma once

#include <stdexcept>
#include <string>

namespace pipecheck {

// Bad input from the user: a flag, a stage name, a path. Exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The environment prevents running (cannot create a folder, fork failed). Exit code 3.
class RunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "open /data/x: No such file or directory" from errno after a failed call; the subject (a
// path) is written as escape_name does (core/text_escape.hpp).
std::string errno_message(const std::string& call, const std::string& subject, int error_number);
[[noreturn]] void throw_errno(const std::string& call, const std::string& subject);

}  // namespace pipecheck
