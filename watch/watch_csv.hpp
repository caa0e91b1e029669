// watch.csv: every sample of `pipecheck watch`, one row a source (gpu, job, proc, host, disk),
// appended and flushed as it is taken, so a kill -9 leaves every whole row readable (the same
// contract as the stress telemetry.csv). The rules' fixtures are recorded in this format.
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "watch/watch_sample.hpp"

namespace pipecheck {

// The header line without its newline; the column order is the schema.
const std::string& watch_csv_header();
// The rows of one sample, each ending in '\n'.
std::string format_watch_sample(const WatchSample& sample);

struct ParsedWatchCsv {
  std::vector<WatchSample> samples;
  std::size_t discarded_tail_bytes = 0;  // a last line cut by a kill (no newline)
  std::vector<std::string> errors;       // lines that do not parse ("line 7: bad cpu_pct 'x'")
};
// Rows are grouped back into samples by their time stamps. A bad header is an error on line 1
// and nothing else is read.
ParsedWatchCsv parse_watch_csv(const std::string& text);

// Appends samples to watch.csv with one write(2) each, fdatasync at most every sync_every.
class WatchCsvWriter {
 public:
  // Creates (truncates) the file and writes the header; throws RunError naming the path.
  explicit WatchCsvWriter(const std::filesystem::path& path,
                          std::chrono::milliseconds sync_every = std::chrono::seconds(1));
  ~WatchCsvWriter();
  WatchCsvWriter(const WatchCsvWriter&) = delete;
  WatchCsvWriter& operator=(const WatchCsvWriter&) = delete;

  // Throws RunError when the write fails (disk full).
  void append(const WatchSample& sample);
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
