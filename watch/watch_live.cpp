// Live lines of the watch and redrawing them.
#include "watch/watch_live.hpp"

#include <sys/ioctl.h>

#include <algorithm>

#include "core/figure_text.hpp"
#include "telemetry/progress_display.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

std::string or_dash(const std::optional<double>& value, const std::string& unit) {
  return value ? figure(*value) + unit : "-" + unit;
}

std::string gpu_line(const GpuWatch& g) {
  std::string line = "gpu" + std::to_string(g.index) + (g.job ? "  " : "* ") + or_dash(g.util_pct, "%") + "  " +
                     or_dash(g.power_w, "") + "/" + or_dash(g.power_limit_w, " W") + "  " +
                     or_dash(g.sm_clock_mhz, " MHz") + "  RX " + or_dash(g.pcie_rx_mbs, " MB/s") + " TX " +
                     or_dash(g.pcie_tx_mbs, " MB/s");
  if (g.mem_used_mib) line += "  " + figure(*g.mem_used_mib / 1024.0) + " GiB";
  if (g.throttle_mask && *g.throttle_mask) line += "  " + clock_event_reasons_text(*g.throttle_mask);
  return line;
}

std::string job_line(const WatchSample& s) {
  const JobWatch& j = s.job;
  std::string line = "job   " + format_clock(s.elapsed_s) + "  " + std::to_string(j.processes) + " procs " +
                     std::to_string(j.threads) + " threads  CPU " + figure(j.cpu_pct) + "%  busy threads " +
                     std::to_string(j.busy_threads) + "  busiest " + (j.top_thread.empty() ? "-" : j.top_thread) + " " +
                     figure(j.top_thread_pct) + "% (demand " + figure(j.top_thread_demand_pct) + "%)";
  if (j.read_mbs) line += "  reads " + figure(*j.read_mbs, "MB/s");
  line += "  waiting for a CPU " + figure(j.run_wait_pct) + "%";
  if (j.io_blocked_pct) line += "  blocked on I/O " + figure(*j.io_blocked_pct) + "%";
  return line;
}

std::string host_line(const HostWatch& h) {
  const double top = h.core_pct.empty() ? 0 : *std::max_element(h.core_pct.begin(), h.core_pct.end());
  return "host  CPU " + or_dash(h.cpu_pct, "%") + " of " + std::to_string(h.core_pct.size()) + " cores (busiest " +
         figure(top) + "%)  iowait " + or_dash(h.iowait_pct, "%");
}

std::string disk_line(const DiskWatch& d) {
  return "disk  " + d.name + (d.job ? "" : "*") + "  " + figure(d.read_mbs, "MB/s") + " " + figure(d.read_iops, "IOPS") +
         "  %util " + figure(d.util_pct) + "  r_await " + figure(d.r_await_ms, "ms") + "  aqu-sz " + figure(d.aqu_sz);
}

}  // namespace

std::vector<std::string> render_live_lines(const WatchSample& sample, const std::string& so_far) {
  std::vector<std::string> lines;
  lines.push_back(job_line(sample));
  for (const auto& g : sample.gpus) lines.push_back(gpu_line(g));
  lines.push_back(host_line(sample.host));
  for (const auto& d : sample.disks) lines.push_back(disk_line(d));
  if (!so_far.empty()) lines.push_back("so far: " + so_far);
  return lines;
}

WatchDisplay::WatchDisplay(std::ostream& out, int tty_fd, double plain_every_s)
    : out_(out), tty_fd_(tty_fd), tty_(tty_fd >= 0), plain_every_s_(plain_every_s) {}

namespace {

// A terminal too small for the live rows, or one that reports no size at all (0x0: a serial
// console, a pty nobody sized) gets plain lines instead.
bool usable_terminal(int fd, winsize& size) {
  return ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_row >= 6 && size.ws_col >= 20;
}

}  // namespace

void WatchDisplay::update(const WatchSample& sample, const std::string& so_far) {
  const std::lock_guard lock(mutex_);
  lines_ = render_live_lines(sample, so_far);
  winsize size{};
  if (tty_ && usable_terminal(tty_fd_, size)) {
    draw();
    return;
  }
  if (tty_) release();  // shrunk below the live rows: give the rows back
  if (sample.elapsed_s - last_plain_ < plain_every_s_) return;
  last_plain_ = sample.elapsed_s;
  for (const auto& line : lines_) out_ << "watch: " << line << "\n";
  out_.flush();
}

void WatchDisplay::draw() {
  winsize size{};
  if (!usable_terminal(tty_fd_, size)) return;
  const int rows = size.ws_row;
  // Grow, never shrink, while the size stays: a disk that comes and goes must not scroll blank
  // rows into the job's output each time.
  const std::size_t want =
      std::min<std::size_t>(std::max(lines_.size(), rows == rows_ ? reserved_ : 0), static_cast<std::size_t>(rows / 3));
  if (want != reserved_ || rows != rows_) {
    release();
    // Scroll the screen up to make room, back to where the cursor was, then keep the bottom
    // rows out of the scroll region (setting it homes the cursor: save and restore around it).
    out_ << std::string(want, '\n') << "\033[" << want << "A\0337\033[1;" << rows - static_cast<int>(want)
         << "r\0338";
    reserved_ = want;
    rows_ = rows;
  }
  out_ << "\0337";
  for (std::size_t i = 0; i < reserved_; ++i) {
    std::string line = i < lines_.size() ? lines_[i] : std::string();
    if (line.size() >= size.ws_col) line.resize(size.ws_col - 1);
    out_ << "\033[" << rows_ - static_cast<int>(reserved_) + 1 + static_cast<int>(i) << ";1H\033[2K" << line;
  }
  out_ << "\0338";
  out_.flush();
}

void WatchDisplay::release() {
  if (!reserved_) return;
  // The whole screen scrolls again; the reserved rows are cleared.
  out_ << "\0337\033[r\033[" << rows_ - static_cast<int>(reserved_) + 1 << ";1H\033[J\0338";
  reserved_ = 0;
}

void WatchDisplay::message(const std::string& line) {
  const std::lock_guard lock(mutex_);
  out_ << line << "\n";
  out_.flush();
}

void WatchDisplay::finish() {
  const std::lock_guard lock(mutex_);
  if (tty_) release();
  out_.flush();
}

}  // namespace pipecheck
