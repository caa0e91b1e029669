// errno helpers.
#include "core/errors.hpp"

#include <cerrno>
#include <cstring>

namespace pipecheck {

std::string errno_message(const std::string& call, const std::string& subject, int error_number) {
  std::string text = call;
  if (!subject.empty()) text += " " + subject;
  return text + ": " + std::strerror(error_number);
}

void throw_errno(const std::string& call, const std::string& subject) {
  throw RunError(errno_message(call, subject, errno));
}

}  // namespace pipecheck
