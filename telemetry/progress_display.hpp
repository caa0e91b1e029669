// Live progress of the stress run: on a terminal, one line a GPU (and one for the host),
// redrawn in place each sample; otherwise plain lines every few seconds, for logs.
#pragma once

#include <chrono>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "telemetry/telemetry_csv.hpp"

namespace pipecheck {

// "gpu0 0000:17:00.0  01:23/10:00  745.2 TFLOP/s  71 C  689/700 W  1980 MHz  SwPowerCap  wrong 0"
std::string render_progress_line(const TelemetryRow& row, double total_s);
// "01:23" or "1:02:03".
std::string format_clock(double seconds);

// Safe to call from several threads.
class ProgressDisplay {
 public:
  // tty: redraw in place; otherwise print the lines every plain_every_s.
  ProgressDisplay(std::ostream& out, bool tty, double total_s, double plain_every_s = 10);

  void update(const std::vector<TelemetryRow>& rows);
  // A line that must stay (a hang, a fault): printed above the live lines.
  void message(const std::string& line);
  // Leaves the last lines on screen and moves below them.
  void finish();

 private:
  void draw();

  std::ostream& out_;
  bool tty_;
  double total_s_;
  double plain_every_s_;
  double last_plain_ = -1e9;
  std::vector<std::string> lines_;
  std::size_t drawn_ = 0;  // lines currently on screen below the cursor's start
  bool unprinted_ = false;  // plain mode: the latest lines were not printed yet
  std::mutex mutex_;        // the sampler, the watchdog and the run all write here
};

}  // namespace pipecheck
