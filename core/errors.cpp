// errno helpers.
#include "core/errors.hpp"

#include <cerrno>
#include <cstring>

#include "core/text_escape.hpp"

namespace pipecheck {

std::string errno_message(const std::string& call, const std::string& subject, int error_number) {
  std::string text = call;
  if (!subject.empty()) {  // a path may hold any bytes
    text += ' ';
    text += escape_name(subject);
  }
  text += ": ";
  text += std::strerror(error_number);
  return text;
}

void throw_errno(const std::string& call, const std::string& subject) {
  throw RunError(errno_message(call, subject, errno));
}

}  // namespace pipecheck
