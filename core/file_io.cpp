// Atomic file writes, whole-file reads, host name and UTC time stamps.
#include "core/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

void write_file_atomically(const fs::path& path, const std::string& content) {
  // A temporary of our own, created exclusively beside the final name (mkostemp: O_CREAT |
  // O_EXCL, a random suffix): a link or file someone placed at "report.json.tmp" is never
  // opened, so nothing is written through it. rename() then replaces the final name itself,
  // never what a link there points to.
  std::string temporary = path.string() + ".tmp-XXXXXX";
  const int fd = mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) throw_errno("create a temporary file beside", path.string());
  const auto fail = [&](const char* call, const std::string& subject) {
    const int saved = errno;
    close(fd);
    unlink(temporary.c_str());
    throw RunError(errno_message(call, subject, saved));
  };
  if (fchmod(fd, 0644) != 0) fail("chmod", temporary);  // mkostemp creates 0600
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write", temporary);
    written += static_cast<std::size_t>(n);
  }
  if (fsync(fd) != 0) fail("fsync", temporary);
  if (close(fd) != 0) {
    const int saved = errno;
    unlink(temporary.c_str());
    throw RunError(errno_message("close", temporary, saved));
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    unlink(temporary.c_str());
    throw RunError(errno_message("rename", path.string(), saved));
  }
}

std::string read_file(const fs::path& path, std::size_t max_bytes) {
  // O_NONBLOCK: a FIFO put where a file belongs must not hang the reader; it is refused below.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw_errno("open", path.string());
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    const int saved = errno;
    close(fd);
    throw RunError(errno_message("stat", path.string(), saved));
  }
  if (!S_ISREG(info.st_mode)) {
    close(fd);
    throw RunError("open " + escape_name(path.string()) + ": not a regular file");
  }
  if (static_cast<std::size_t>(info.st_size) > max_bytes) {
    close(fd);
    throw RunError("read " + escape_name(path.string()) + ": larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[65536];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      close(fd);
      throw RunError(errno_message("read", path.string(), saved));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      close(fd);
      throw RunError("read " + escape_name(path.string()) + ": larger than " + std::to_string(max_bytes) + " bytes");
    }
  }
  close(fd);
  return text;
}

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0 || buffer[0] == '\0') return "unknown-host";
  return buffer;
}

namespace {

std::string utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, format, &utc);
  return buffer;
}

}  // namespace

std::string utc_now_iso() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_now_compact() { return utc_now("%Y%m%dT%H%M%SZ"); }

}  // namespace pipecheck
