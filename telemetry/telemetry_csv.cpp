// Formatting, appending and parsing telemetry.csv rows.
#include "telemetry/telemetry_csv.hpp"

#include "core/number_input.hpp"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "core/append_log.hpp"
#include "core/errors.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

constexpr const char* columns[] = {
    "utc_time",        "elapsed_s",    "source",        "gpu_index",    "gpu_bus_id",
    "temp_c",          "mem_temp_c",   "power_w",       "power_limit_w", "sm_clock_mhz",
    "mem_clock_mhz",   "util_gpu_pct", "util_mem_pct",  "throttle_reasons", "ecc_corrected",
    "ecc_uncorrected", "pcie_replays", "xid",           "cpu_util_pct", "cpu_temp_c",
    "cpu_package_w",   "tflops",       "wrong_results"};
constexpr std::size_t column_count = sizeof columns / sizeof columns[0];

std::string number(const std::optional<double>& value, int decimals) {
  if (!value) return {};
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, *value);
  return buffer;
}

std::string count(const std::optional<std::uint64_t>& value) {
  return value ? std::to_string(*value) : std::string{};
}

std::string joined_xids(const std::vector<int>& xids) {
  std::string text;
  for (int xid : xids) {
    if (!text.empty()) text += '|';
    text += std::to_string(xid);
  }
  return text;
}

// Cell parsers: empty -> nullopt; garbage -> throws std::invalid_argument naming the cell.
std::optional<double> parse_double(const std::string& cell, const char* name) {
  if (cell.empty()) return std::nullopt;
  // Finite and of a sensor's size: nan would pass into every chart coordinate, 1e308 becomes
  // inf once scaled (core/number_input.hpp).
  constexpr double kLargestSensorValue = 1e12;
  std::string why;
  const auto value = parse_number(cell, -kLargestSensorValue, kLargestSensorValue, why);
  if (!value) throw std::invalid_argument(std::string(name) + " " + why);  // "temp_c 'hot' is not a number (...)"
  return *value;
}

std::optional<std::uint64_t> parse_count(const std::string& cell, const char* name) {
  if (cell.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (ec != std::errc{} || end != cell.data() + cell.size()) {
    throw std::invalid_argument(std::string(name) + " '" + cell + "'");
  }
  return value;
}

TelemetryRow parse_row(const std::vector<std::string>& c) {
  TelemetryRow row;
  row.utc_time = c[0];
  row.elapsed_s = parse_double(c[1], "elapsed_s").value_or(0);
  row.source = c[2];
  if (row.source != "gpu" && row.source != "host") throw std::invalid_argument("source '" + c[2] + "'");
  if (auto index = parse_count(c[3], "gpu_index")) row.gpu_index = static_cast<int>(*index);
  row.gpu_bus_id = c[4];
  row.temp_c = parse_double(c[5], "temp_c");
  row.mem_temp_c = parse_double(c[6], "mem_temp_c");
  row.power_w = parse_double(c[7], "power_w");
  row.power_limit_w = parse_double(c[8], "power_limit_w");
  row.sm_clock_mhz = parse_double(c[9], "sm_clock_mhz");
  row.mem_clock_mhz = parse_double(c[10], "mem_clock_mhz");
  row.util_gpu_pct = parse_double(c[11], "util_gpu_pct");
  row.util_mem_pct = parse_double(c[12], "util_mem_pct");
  if (!c[13].empty()) {
    row.throttle_mask = parse_clock_event_reasons(c[13]);
    if (!row.throttle_mask) throw std::invalid_argument("throttle_reasons '" + c[13] + "'");
  }
  row.ecc_corrected = parse_count(c[14], "ecc_corrected");
  row.ecc_uncorrected = parse_count(c[15], "ecc_uncorrected");
  row.pcie_replays = parse_count(c[16], "pcie_replays");
  for (const auto& xid : split_cells(c[17], '|')) {
    if (xid.empty()) continue;
    row.xids.push_back(static_cast<int>(*parse_count(xid, "xid")));
  }
  row.cpu_util_pct = parse_double(c[18], "cpu_util_pct");
  row.cpu_temp_c = parse_double(c[19], "cpu_temp_c");
  row.cpu_package_w = parse_double(c[20], "cpu_package_w");
  row.tflops = parse_double(c[21], "tflops");
  row.wrong_results = parse_count(c[22], "wrong_results");
  return row;
}

}  // namespace

const std::string& telemetry_csv_header() {
  static const std::string header = header_line(columns);
  return header;
}

std::string format_telemetry_row(const TelemetryRow& row) {
  const std::string cells[column_count] = {
      row.utc_time,
      number(row.elapsed_s, 3),
      row.source,
      row.gpu_index ? std::to_string(*row.gpu_index) : std::string{},
      row.gpu_bus_id,
      number(row.temp_c, 0),
      number(row.mem_temp_c, 0),
      number(row.power_w, 1),
      number(row.power_limit_w, 1),
      number(row.sm_clock_mhz, 0),
      number(row.mem_clock_mhz, 0),
      number(row.util_gpu_pct, 0),
      number(row.util_mem_pct, 0),
      row.throttle_mask ? clock_event_reasons_text(*row.throttle_mask) : std::string{},
      count(row.ecc_corrected),
      count(row.ecc_uncorrected),
      count(row.pcie_replays),
      joined_xids(row.xids),
      number(row.cpu_util_pct, 1),
      number(row.cpu_temp_c, 1),
      number(row.cpu_package_w, 1),
      number(row.tflops, 3),
      count(row.wrong_results),
  };
  std::string line;
  for (std::size_t i = 0; i < column_count; ++i) {
    if (i) line += ',';
    line += cells[i];
  }
  line += '\n';
  return line;
}

ParsedTelemetry parse_telemetry_csv(const std::string& text) {
  ParsedTelemetry parsed;
  const WholeLines whole = split_whole_lines(text);
  parsed.discarded_tail_bytes = whole.discarded_tail_bytes;
  for (std::size_t i = 0; i < whole.lines.size(); ++i) {
    const std::string& line = whole.lines[i];
    const std::string where = "line " + std::to_string(i + 1) + ": ";
    if (i == 0) {
      if (line != telemetry_csv_header()) parsed.errors.push_back(where + "not the telemetry header");
      continue;
    }
    const auto cells = split_cells(line);
    if (cells.size() != column_count) {
      parsed.errors.push_back(where + std::to_string(cells.size()) + " cells, expected " + std::to_string(column_count));
      continue;
    }
    try {
      parsed.rows.push_back(parse_row(cells));
    } catch (const std::invalid_argument& e) {
      parsed.errors.push_back(where + "bad " + e.what());
    }
  }
  return parsed;
}

TelemetryCsvWriter::TelemetryCsvWriter(const std::filesystem::path& path,
                                       std::chrono::milliseconds sync_every)
    : log_(path, telemetry_csv_header(), sync_every) {}

void TelemetryCsvWriter::append(const std::vector<TelemetryRow>& rows) {
  std::string text;
  for (const auto& row : rows) text += format_telemetry_row(row);
  log_.append(text);
}

}  // namespace pipecheck
