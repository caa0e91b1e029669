// The stress telemetry record (telemetry.csv): one row a sample a source, written as it is
// sampled so that a kill -9, a hang or a driver crash leaves every whole row readable.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/append_log.hpp"

namespace pipecheck {

// One sample of one source. Empty optionals are empty cells ("not reported").
struct TelemetryRow {
  std::string utc_time;  // "2026-11-30T09:00:01.250Z"
  double elapsed_s = 0;  // since the burn started
  std::string source;    // "gpu" or "host"
  std::optional<int> gpu_index;
  std::string gpu_bus_id;  // "0000:17:00.0"
  std::optional<double> temp_c;
  std::optional<double> mem_temp_c;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<double> sm_clock_mhz;
  std::optional<double> mem_clock_mhz;
  std::optional<double> util_gpu_pct;
  std::optional<double> util_mem_pct;
  std::optional<std::uint64_t> throttle_mask;  // written as names joined with '|'
  std::optional<std::uint64_t> ecc_corrected;
  std::optional<std::uint64_t> ecc_uncorrected;
  std::optional<std::uint64_t> pcie_replays;
  std::vector<int> xids;  // seen since the previous sample, joined with '|'
  std::optional<double> cpu_util_pct;
  std::optional<double> cpu_temp_c;
  std::optional<double> cpu_package_w;
  std::optional<double> tflops;  // the burn's rate over the last interval (CPU burn on host rows)
  std::optional<std::uint64_t> wrong_results;  // cumulative
};

// The header line, without the newline; the column order is the schema the report reads.
const std::string& telemetry_csv_header();
// One row as a CSV line ending in '\n'.
std::string format_telemetry_row(const TelemetryRow& row);

struct ParsedTelemetry {
  std::vector<TelemetryRow> rows;
  std::size_t discarded_tail_bytes = 0;  // a last line cut by a kill (no newline)
  std::vector<std::string> errors;       // whole lines that do not parse ("line 7: ...")
};
// Reads a telemetry.csv: header first, then every whole line; a last line without its newline
// is counted in discarded_tail_bytes, not parsed.
ParsedTelemetry parse_telemetry_csv(const std::string& text);

// Appends rows to telemetry.csv through an AppendLog (core/append_log.hpp): every appended row
// survives kill -9, a hang or a driver crash.
class TelemetryCsvWriter {
 public:
  // Creates (truncates) the file and writes the header. Throws RunError naming the path.
  explicit TelemetryCsvWriter(const std::filesystem::path& path,
                              std::chrono::milliseconds sync_every = std::chrono::seconds(1));

  // Throws RunError when the write fails (disk full): the caller decides whether to go on.
  void append(const std::vector<TelemetryRow>& rows);
  void sync() { log_.sync(); }
  const std::filesystem::path& path() const { return log_.path(); }

 private:
  AppendLog log_;
};

}  // namespace pipecheck
