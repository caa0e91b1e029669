// Runs a piece of a test as an unprivileged user: permission checks (an unreadable folder, an
// unreadable file) cannot be tested as root, who reads everything. As root it forks and drops
// to nobody (65534) in the child; otherwise it runs in place. Returns what `body` returned, or
// nullopt when the child could not drop its privileges or crashed.
#pragma once

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <optional>
#include <string>

namespace pipecheck::test {

inline std::optional<std::string> as_nobody(const std::function<std::string()>& body) {
  if (geteuid() != 0) return body();
  int channel[2];
  if (pipe(channel) != 0) return std::nullopt;
  const pid_t child = fork();
  if (child < 0) return std::nullopt;
  if (child == 0) {
    close(channel[0]);
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
    std::string text;
    try {
      text = body();
    } catch (const std::exception& error) {
      text = std::string("exception: ") + error.what();
    }
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(channel[1], text.data() + written, text.size() - written);
      if (n <= 0) _exit(3);
      written += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(channel[1]);
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(channel[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  close(channel[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return text;
}

}  // namespace pipecheck::test
