// watch.csv: every sample of `pipecheck watch`, one row a source (gpu, job, proc, host, disk),
// appended and flushed as it is taken, so a kill -9 leaves every whole row readable (the same
// contract as the stress telemetry.csv). The rules' fixtures are recorded in this format.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/append_log.hpp"
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

// Appends samples to watch.csv through an AppendLog (core/append_log.hpp): one write(2) a
// sample, fdatasync at most every sync_every, so kill -9 leaves every whole sample readable.
class WatchCsvWriter {
 public:
  // Creates (truncates) the file and writes the header; throws RunError naming the path.
  explicit WatchCsvWriter(const std::filesystem::path& path,
                          std::chrono::milliseconds sync_every = std::chrono::seconds(1));

  // Throws RunError when the write fails (disk full).
  void append(const WatchSample& sample) { log_.append(format_watch_sample(sample)); }
  const std::filesystem::path& path() const { return log_.path(); }

 private:
  AppendLog log_;
};

}  // namespace pipecheck
