// telemetry.csv reader: header by name, empty cell = not reported, partial rows dropped.
#include "reports/telemetry_csv_reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>

#include "core/file_io.hpp"
#include "stress/throttle_reasons.hpp"

namespace pipecheck {

namespace {

// One CSV line split into fields; double quotes are honoured though stress/ does not need them.
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

std::string trim(const std::string& text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// A numeric cell: empty -> not reported; anything else must be a finite number.
bool parse_number(const std::string& cell, std::optional<double>& into) {
  const std::string text = trim(cell);
  into.reset();
  if (text.empty()) return true;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return false;
  into = value;
  return true;
}

std::vector<std::string> split_reasons(const std::string& cell) {
  std::vector<std::string> reasons;
  std::size_t start = 0;
  const std::string text = trim(cell);
  while (start <= text.size() && !text.empty()) {
    const std::size_t bar = text.find('|', start);
    const std::string name = trim(text.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (!name.empty()) reasons.push_back(name);
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return reasons;
}

}  // namespace

const std::vector<std::string>& telemetry_csv_columns() {
  static const std::vector<std::string> columns = {
      "utc_time",      "elapsed_s",     "source",        "gpu_index",       "gpu_bus_id",
      "temp_c",        "mem_temp_c",    "power_w",       "power_limit_w",   "sm_clock_mhz",
      "mem_clock_mhz", "util_gpu_pct",  "util_mem_pct",  "throttle_reasons", "ecc_corrected",
      "ecc_uncorrected", "pcie_replays", "xid",          "cpu_util_pct",    "cpu_temp_c",
      "cpu_package_w", "tflops",        "wrong_results"};
  return columns;
}

TelemetryLog parse_telemetry_log(const std::string& text) {
  // Lines; a final line without '\n' is a write cut short by kill -9 (DESIGN principle 5).
  std::vector<std::string> lines;
  std::size_t start = 0;
  bool last_partial = false;
  while (start < text.size()) {
    const std::size_t newline = text.find('\n', start);
    if (newline == std::string::npos) {
      lines.push_back(text.substr(start));
      last_partial = true;
      break;
    }
    std::string line = text.substr(start, newline - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = newline + 1;
  }
  if (lines.empty() || trim(lines.front()).empty()) {
    throw std::runtime_error("telemetry.csv: empty (no header line)");
  }
  if (lines.size() == 1 && last_partial) {
    throw std::runtime_error("telemetry.csv: the header line is incomplete");
  }

  const std::vector<std::string> header = split_csv_line(lines.front());
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < header.size(); ++i) column.emplace(trim(header[i]), i);
  for (const auto& name : telemetry_csv_columns()) {
    if (!column.count(name)) {
      throw std::runtime_error("telemetry.csv: header has no column '" + name + "'");
    }
  }

  TelemetryLog log;
  for (std::size_t n = 1; n < lines.size(); ++n) {
    const std::string where = "line " + std::to_string(n + 1);
    if (n + 1 == lines.size() && last_partial) {
      log.dropped.push_back(where + ": no newline at the end (partial last row)");
      continue;
    }
    if (trim(lines[n]).empty()) continue;
    const std::vector<std::string> fields = split_csv_line(lines[n]);
    if (fields.size() != header.size()) {
      log.dropped.push_back(where + ": " + std::to_string(fields.size()) + " of " +
                            std::to_string(header.size()) + " fields");
      continue;
    }
    auto cell = [&](const char* name) -> const std::string& { return fields[column.at(name)]; };
    TelemetrySample s;
    s.utc_time = trim(cell("utc_time"));
    s.source = trim(cell("source"));
    s.gpu_bus_id = trim(cell("gpu_bus_id"));
    s.xid = trim(cell("xid"));
    s.throttle_reasons = split_reasons(cell("throttle_reasons"));
    std::optional<double> elapsed;
    std::optional<double> gpu_index;
    std::string bad;
    auto number = [&](const char* name, std::optional<double>& into) {
      if (!parse_number(cell(name), into) && bad.empty()) bad = name;
    };
    number("elapsed_s", elapsed);
    number("gpu_index", gpu_index);
    number("temp_c", s.temp_c);
    number("mem_temp_c", s.mem_temp_c);
    number("power_w", s.power_w);
    number("power_limit_w", s.power_limit_w);
    number("sm_clock_mhz", s.sm_clock_mhz);
    number("mem_clock_mhz", s.mem_clock_mhz);
    number("util_gpu_pct", s.util_gpu_pct);
    number("util_mem_pct", s.util_mem_pct);
    number("ecc_corrected", s.ecc_corrected);
    number("ecc_uncorrected", s.ecc_uncorrected);
    number("pcie_replays", s.pcie_replays);
    number("cpu_util_pct", s.cpu_util_pct);
    number("cpu_temp_c", s.cpu_temp_c);
    number("cpu_package_w", s.cpu_package_w);
    number("tflops", s.tflops);
    number("wrong_results", s.wrong_results);
    if (!bad.empty()) {
      log.dropped.push_back(where + ": " + bad + " is not a number: '" + trim(cell(bad.c_str())) + "'");
      continue;
    }
    if (!elapsed) {
      log.dropped.push_back(where + ": no elapsed_s");
      continue;
    }
    s.elapsed_s = *elapsed;
    if (gpu_index) s.gpu_index = static_cast<int>(*gpu_index);
    log.samples.push_back(std::move(s));
  }
  return log;
}

TelemetryLog read_telemetry_log(const std::filesystem::path& path) {
  return parse_telemetry_log(read_file(path));
}

bool is_throttled(const TelemetrySample& sample) {
  // The reasons that fail a burn (stress/throttle_reasons: thermal and hardware slowdowns). A
  // power cap is where a GEMM burn is meant to run, so shading it would shade the whole run.
  for (const auto& name : sample.throttle_reasons) {
    for (const auto& reason : clock_event_reasons()) {
      if (reason.fails_burn && name == reason.name) return true;
    }
  }
  return false;
}

}  // namespace pipecheck
