// The live view of a watch on stderr: on a terminal a few lines redrawn each sample at the bottom
// of the screen (GPUs, the job, the host, its disks, the verdict so far); otherwise the same lines
// as plain text every few seconds, for logs. Never on stdout: the job's output passes through
// there. The job shares the terminal, so the live lines live in rows reserved below a scroll
// region (as apt's progress bar does): the job's output scrolls above them and is never erased.
#pragma once

#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "watch/watch_sample.hpp"

namespace pipecheck {

// The lines for one sample; `so_far` is the provisional verdict ("" before there is one).
std::vector<std::string> render_live_lines(const WatchSample& sample, const std::string& so_far);

class WatchDisplay {
 public:
  // tty_fd: the terminal `out` writes to (its size is asked each draw), or -1 for plain lines
  // every plain_every_s of elapsed time.
  WatchDisplay(std::ostream& out, int tty_fd, double plain_every_s = 10);

  void update(const WatchSample& sample, const std::string& so_far);
  // A line that stays (the job ended, a failed write), printed above the live lines.
  void message(const std::string& line);
  // Clears the live lines on a terminal (the final report follows); prints nothing else.
  void finish();

 private:
  void draw();
  void release();

  std::ostream& out_;
  int tty_fd_;
  bool tty_;
  int rows_ = 0;          // terminal height when the rows were reserved
  std::size_t reserved_ = 0;  // rows kept below the scroll region
  double plain_every_s_;
  double last_plain_ = -1e9;
  std::vector<std::string> lines_;
  std::mutex mutex_;
};

}  // namespace pipecheck
