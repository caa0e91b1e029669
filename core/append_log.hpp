// An append-only record that survives the process: stress's telemetry.csv and watch.csv. Each
// append is one write(2) of whole lines straight to the file (no user-space buffer), so once it
// returns the lines survive kill -9 or a hang; a kill inside the write can only cut the last
// line, which the readers drop. fdatasync at most every sync_every (and at close) also carries
// them over a kernel panic or power loss, which a driver crash can cause, at the cost of one
// disk flush a second rather than one a line.
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace pipecheck {

// Reading such a record back: every whole line, and the bytes of a last line without its newline
// (a write cut by a kill), which are never parsed.
struct WholeLines {
  std::vector<std::string> lines;
  std::size_t discarded_tail_bytes = 0;
};
WholeLines split_whole_lines(const std::string& text);

// The cells of one line (no quoting: the records write none); "" gives one empty cell.
std::vector<std::string> split_cells(const std::string& line, char separator = ',');

// The header line of a record: the column names joined with commas.
template <typename Names>
std::string header_line(const Names& names) {
  std::string text;
  for (const char* name : names) {
    if (!text.empty()) text += ',';
    text += name;
  }
  return text;
}

class AppendLog {
 public:
  // Creates the file, writes `first_line` and a newline, and syncs. The file must not exist:
  // a file, or a link, found at its name is refused (RunError naming it), never truncated or
  // followed. O_CLOEXEC: a watched or spawned command must not inherit the record. Throws
  // RunError naming the path.
  AppendLog(const std::filesystem::path& path, const std::string& first_line,
            std::chrono::milliseconds sync_every = std::chrono::seconds(1));
  ~AppendLog();
  AppendLog(const AppendLog&) = delete;
  AppendLog& operator=(const AppendLog&) = delete;

  // Appends whole lines (text ending in '\n'). Thread-safe. Throws RunError when the write fails
  // (disk full): the caller decides whether to go on.
  void append(const std::string& lines);
  void sync();
  const std::filesystem::path& path() const { return path_; }

 private:
  void write_all(const std::string& text);

  std::filesystem::path path_;
  int fd_ = -1;
  std::chrono::milliseconds sync_every_;
  std::chrono::steady_clock::time_point last_sync_;
  std::mutex mutex_;
};

}  // namespace pipecheck
