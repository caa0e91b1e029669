// The watch's verdict on the terminal: the headline with the figures behind it and what to try,
// the other rules that fired, the observed rates against the measured ceilings, a line per GPU,
// for the job, the host and each disk, and the notes. Written to stderr by `pipecheck watch`, so
// the watched job's stdout passes through untouched.
#pragma once

#include <string>

#include "watch/watch_report.hpp"

namespace pipecheck {

std::string render_watch_text(const WatchReport& report);

}  // namespace pipecheck
