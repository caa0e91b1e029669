// Lost standard output as a failure (core/standard_output.hpp).
#include "core/standard_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/outcome.hpp"

namespace pipecheck {

namespace {

// Written from the signal handler: prepared before, so the handler only calls write and _exit.
char g_broken_pipe_message[256];
std::size_t g_broken_pipe_length = 0;

void on_broken_pipe(int) {
  (void)!write(STDERR_FILENO, g_broken_pipe_message, g_broken_pipe_length);
  _exit(3);
}

}  // namespace

void exit_three_on_broken_pipe(const std::string& program) {
  const std::string message = program.substr(0, 100) + ": cannot write standard output: Broken pipe\n";
  std::memcpy(g_broken_pipe_message, message.data(), message.size());
  g_broken_pipe_length = message.size();
  struct sigaction old {};
  sigaction(SIGPIPE, nullptr, &old);
  if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) return;  // the launcher's choice
  struct sigaction action {};
  action.sa_handler = on_broken_pipe;
  sigemptyset(&action.sa_mask);
  sigaction(SIGPIPE, &action, nullptr);
}

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
