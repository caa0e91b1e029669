// telemetry.csv for the renderers: telemetry/telemetry_csv parses it (one parser for the format);
// this checks the header with a message naming a missing column and turns rows into samples.
#include "telemetry/telemetry_csv_reader.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/file_io.hpp"
#include "telemetry/telemetry_csv.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

std::vector<std::string> split_on(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t at = text.find(separator, start);
    parts.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return parts;
}

// The stress parser wants its header exactly; this names what a foreign file lacks.
void check_header(const std::string& text) {
  const std::size_t newline = text.find('\n');
  if (text.empty() || newline == 0) throw std::runtime_error("telemetry.csv: empty (no header line)");
  if (newline == std::string::npos) throw std::runtime_error("telemetry.csv: the header line is incomplete");
  const std::vector<std::string> header = split_on(text.substr(0, newline), ',');
  for (const auto& name : telemetry_csv_columns()) {
    if (std::find(header.begin(), header.end(), name) == header.end()) {
      throw std::runtime_error("telemetry.csv: header has no column '" + name + "'");
    }
  }
  if (text.compare(0, newline, telemetry_csv_header()) != 0) {
    throw std::runtime_error("telemetry.csv: columns not in the order stress/ writes them");
  }
}

std::optional<double> as_double(const std::optional<std::uint64_t>& count) {
  if (!count) return std::nullopt;
  return static_cast<double>(*count);
}

TelemetrySample sample_of(const TelemetryRow& row) {
  TelemetrySample s;
  s.utc_time = row.utc_time;
  s.elapsed_s = row.elapsed_s;
  s.source = row.source;
  s.gpu_index = row.gpu_index;
  s.gpu_bus_id = row.gpu_bus_id;
  s.temp_c = row.temp_c;
  s.mem_temp_c = row.mem_temp_c;
  s.power_w = row.power_w;
  s.power_limit_w = row.power_limit_w;
  s.sm_clock_mhz = row.sm_clock_mhz;
  s.mem_clock_mhz = row.mem_clock_mhz;
  s.util_gpu_pct = row.util_gpu_pct;
  s.util_mem_pct = row.util_mem_pct;
  if (row.throttle_mask && *row.throttle_mask != 0) {
    s.throttle_reasons = split_on(clock_event_reasons_text(*row.throttle_mask), '|');
  }
  s.ecc_corrected = as_double(row.ecc_corrected);
  s.ecc_uncorrected = as_double(row.ecc_uncorrected);
  s.pcie_replays = as_double(row.pcie_replays);
  for (int xid : row.xids) {
    if (!s.xid.empty()) s.xid += '|';
    s.xid += std::to_string(xid);
  }
  s.cpu_util_pct = row.cpu_util_pct;
  s.cpu_temp_c = row.cpu_temp_c;
  s.cpu_package_w = row.cpu_package_w;
  s.tflops = row.tflops;
  s.wrong_results = as_double(row.wrong_results);
  return s;
}

}  // namespace

const std::vector<std::string>& telemetry_csv_columns() {
  static const std::vector<std::string> columns = split_on(telemetry_csv_header(), ',');
  return columns;
}

TelemetryLog parse_telemetry_log(const std::string& text) {
  check_header(text);
  const ParsedTelemetry parsed = parse_telemetry_csv(text);  // stress/ owns the format
  TelemetryLog log;
  for (const auto& row : parsed.rows) log.samples.push_back(sample_of(row));
  log.dropped = parsed.errors;
  if (parsed.discarded_tail_bytes > 0) {
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    log.dropped.push_back("line " + std::to_string(lines + 1) + ": no newline at the end (partial last row)");
  }
  return log;
}

TelemetryLog read_telemetry_log(const std::filesystem::path& path) {
  return parse_telemetry_log(read_file(path));
}

bool is_throttled(const TelemetrySample& sample) {
  // The reasons that fail a burn (telemetry/throttle_reasons: thermal and hardware slowdowns). A
  // power cap is where a GEMM burn is meant to run, so shading it would shade the whole run.
  for (const auto& name : sample.throttle_reasons) {
    for (const auto& reason : clock_event_reasons()) {
      if (reason.fails_burn && name == reason.name) return true;
    }
  }
  return false;
}

}  // namespace pipecheck
