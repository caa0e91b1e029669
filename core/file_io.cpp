// Atomic file writes, whole-file reads, host name and UTC time stamps.
#include "core/file_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"

namespace pipecheck {

namespace fs = std::filesystem;

void write_file_atomically(const fs::path& path, const std::string& content) {
  const fs::path temporary = path.string() + ".tmp";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_errno("open", temporary.string());
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      close(fd);
      unlink(temporary.c_str());
      throw RunError(errno_message("write", temporary.string(), saved));
    }
    written += static_cast<std::size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    const int saved = errno;
    unlink(temporary.c_str());
    throw RunError(errno_message("fsync", temporary.string(), saved));
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    unlink(temporary.c_str());
    throw RunError(errno_message("rename", path.string(), saved));
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RunError(errno_message("open", path.string(), errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
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
