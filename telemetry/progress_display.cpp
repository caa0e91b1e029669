// Rendering the stress progress lines and redrawing them on a terminal.
#include "telemetry/progress_display.hpp"

#include <cstdio>

#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string or_dash(const std::optional<double>& value, int decimals, const char* unit) {
  return value ? fixed(*value, decimals) + unit : std::string("-") + unit;
}

}  // namespace

std::string format_clock(double seconds) {
  const long total = seconds < 0 ? 0 : static_cast<long>(seconds);
  char buffer[32];
  if (total >= 3600) {
    std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(buffer, sizeof buffer, "%02ld:%02ld", total / 60, total % 60);
  }
  return buffer;
}

std::string render_progress_line(const TelemetryRow& row, double total_s) {
  std::string line;
  const std::string when = format_clock(row.elapsed_s) + "/" + format_clock(total_s);
  if (row.source == "gpu") {
    line = "gpu" + std::to_string(row.gpu_index.value_or(-1)) + " " + row.gpu_bus_id + "  " + when + "  " +
           or_dash(row.tflops, 1, " TFLOP/s") + "  " + or_dash(row.temp_c, 0, " C") + "  " +
           or_dash(row.power_w, 0, "") + "/" + or_dash(row.power_limit_w, 0, " W") + "  " +
           or_dash(row.sm_clock_mhz, 0, " MHz");
    const std::string reasons = row.throttle_mask ? clock_event_reasons_text(*row.throttle_mask) : "";
    if (!reasons.empty()) line += "  " + reasons;
  } else {
    line = "host  " + when + "  " + or_dash(row.cpu_util_pct, 0, "% CPU") + "  " +
           or_dash(row.cpu_temp_c, 0, " C") + "  " + or_dash(row.cpu_package_w, 0, " W");
    if (row.tflops) line += "  " + fixed(*row.tflops * 1000.0, 1) + " GFLOP/s";
  }
  if (row.wrong_results) line += "  wrong " + std::to_string(*row.wrong_results);
  for (int xid : row.xids) line += "  Xid " + std::to_string(xid);
  return line;
}

ProgressDisplay::ProgressDisplay(std::ostream& out, bool tty, double total_s, double plain_every_s)
    : out_(out), tty_(tty), total_s_(total_s), plain_every_s_(plain_every_s) {}

void ProgressDisplay::update(const std::vector<TelemetryRow>& rows) {
  if (rows.empty()) return;
  const std::lock_guard lock(mutex_);
  lines_.clear();
  for (const auto& row : rows) lines_.push_back(render_progress_line(row, total_s_));
  if (tty_) {
    draw();
    return;
  }
  const double elapsed = rows.front().elapsed_s;
  unprinted_ = true;
  if (elapsed - last_plain_ < plain_every_s_) return;
  last_plain_ = elapsed;
  unprinted_ = false;
  for (const auto& line : lines_) out_ << line << "\n";
  out_.flush();
}

void ProgressDisplay::draw() {
  // Back to the first live line, then each line cleared and rewritten.
  if (drawn_) out_ << "\x1b[" << drawn_ << "F";
  for (const auto& line : lines_) out_ << "\x1b[2K" << line << "\n";
  drawn_ = lines_.size();
  out_.flush();
}

void ProgressDisplay::message(const std::string& line) {
  const std::lock_guard lock(mutex_);
  if (tty_ && drawn_) {
    out_ << "\x1b[" << drawn_ << "F\x1b[J";
    drawn_ = 0;
  }
  out_ << line << "\n";
  if (tty_ && !lines_.empty()) draw();
  out_.flush();
}

void ProgressDisplay::finish() {
  const std::lock_guard lock(mutex_);
  if (!tty_ && unprinted_) {
    for (const auto& line : lines_) out_ << line << "\n";
  }
  unprinted_ = false;
  drawn_ = 0;
  out_.flush();
}

}  // namespace pipecheck
