// The append-only record: O_APPEND, one write(2) per append, throttled fdatasync.
#include "core/append_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

WholeLines split_whole_lines(const std::string& text) {
  WholeLines result;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      result.discarded_tail_bytes = text.size() - start;
      break;
    }
    result.lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

std::vector<std::string> split_cells(const std::string& line, char separator) {
  std::vector<std::string> cells(1);
  for (char c : line) {
    if (c == separator) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

AppendLog::AppendLog(const std::filesystem::path& path, const std::string& first_line,
                     std::chrono::milliseconds sync_every)
    : path_(path), sync_every_(sync_every), last_sync_(std::chrono::steady_clock::now()) {
  // O_APPEND: every write lands at the end even if something else appends (a reader tailing
  // the file is fine; two writers would still interleave whole writes only). O_EXCL and
  // O_NOFOLLOW: the record is a file this process creates, never one found at its name (a
  // link there would have us truncate and fill the file it points to, a hard link likewise).
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == EEXIST) {
    struct stat info {};
    const bool link = lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
    throw RunError(escape_name(path.string()) +
                   (link ? ": is a symbolic link; pipecheck does not write through links"
                         : ": already exists; pipecheck writes only files it creates"));
  }
  if (fd_ < 0) throw_errno("create", path.string());
  write_all(first_line + "\n");
  sync();
}

AppendLog::~AppendLog() {
  if (fd_ < 0) return;
  fdatasync(fd_);
  close(fd_);
}

void AppendLog::write_all(const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("write", path_.string());
    written += static_cast<std::size_t>(n);
  }
}

void AppendLog::append(const std::string& lines) {
  const std::lock_guard lock(mutex_);
  write_all(lines);
  if (std::chrono::steady_clock::now() - last_sync_ >= sync_every_) {
    fdatasync(fd_);
    last_sync_ = std::chrono::steady_clock::now();
  }
}

void AppendLog::sync() {
  fdatasync(fd_);
  last_sync_ = std::chrono::steady_clock::now();
}

}  // namespace pipecheck
