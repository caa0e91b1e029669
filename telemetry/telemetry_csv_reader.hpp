// Reads a stress run's telemetry.csv (written by stress/ as it samples, append + flush) into typed
// samples for the renderers. A run killed mid-write leaves a partial last row: it is dropped.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

// One row: one GPU (source "gpu") or the host (source "host") at one instant. Empty cells are
// "not reported" and stay empty here; nothing is guessed.
struct TelemetrySample {
  std::string utc_time;
  double elapsed_s = 0;
  std::string source;  // "gpu" or "host"
  std::optional<int> gpu_index;
  std::string gpu_bus_id;
  std::optional<double> temp_c;
  std::optional<double> mem_temp_c;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<double> sm_clock_mhz;
  std::optional<double> mem_clock_mhz;
  std::optional<double> util_gpu_pct;
  std::optional<double> util_mem_pct;
  std::vector<std::string> throttle_reasons;  // the cell split on '|'
  std::optional<double> ecc_corrected;
  std::optional<double> ecc_uncorrected;
  std::optional<double> pcie_replays;
  std::string xid;  // as written: one code or several joined by '|'
  std::optional<double> cpu_util_pct;
  std::optional<double> cpu_temp_c;
  std::optional<double> cpu_package_w;
  std::optional<double> tflops;
  std::optional<double> wrong_results;
};

struct TelemetryLog {
  std::vector<TelemetrySample> samples;
  // Rows left out, each with why ("line 63: 7 of 23 fields (partial last row)").
  std::vector<std::string> dropped;
};

// The columns, in the order stress/ writes them.
const std::vector<std::string>& telemetry_csv_columns();

// Parses the text of a telemetry.csv. Throws std::runtime_error when the header lacks a column
// (naming it) or the text is empty; a malformed row is dropped with a note, never fatal, and a
// last row without its newline is the partial write of a killed run and is always dropped.
TelemetryLog parse_telemetry_log(const std::string& text);
// Reads and parses a file; throws RunError when it cannot be read.
TelemetryLog read_telemetry_log(const std::filesystem::path& path);

// Whether a sample's clock-event reasons include a thermal or hardware slowdown (the reasons
// that fail a burn); idle, user-set clocks and the power cap do not count.
bool is_throttled(const TelemetrySample& sample);

}  // namespace pipecheck
