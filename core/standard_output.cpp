// Lost standard output as a failure (core/standard_output.hpp).
#include "core/standard_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/outcome.hpp"

namespace pipecheck {

void hold_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = open("/dev/null", O_RDONLY);
    if (opened >= 0 && opened != fd) {
      dup2(opened, fd);
      close(opened);
    }
  }
}

int checked_stdout(int code, const std::string& program) {
  std::cout.flush();
  errno = 0;
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.bad();
  if (!failed) return code;
  int error = errno;
  // The write that failed may be long past (stdio's buffer was dropped then): ask again.
  if (error == 0 && write(STDOUT_FILENO, "\n", 1) < 0) error = errno;
  std::cerr << program << ": cannot write standard output: " << (error != 0 ? std::strerror(error) : "write failed")
            << "\n";
  return pipecheck::code(combine(exit_code_from_int(code), ExitCode::could_not_run));
}

}  // namespace pipecheck
