// What running one probe executable produced: its measurements, or why there are none
// (skipped, not built, crashed, timed out, printed garbage).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "core/outcome.hpp"
#include "core/run_conditions.hpp"

namespace pipecheck {


struct ProbeOutcome {
  std::string probe;   // "pipecheck-hostmem"
  std::string stage;   // a stage key (core/stage_names.hpp)
  ProbeStatus status = ProbeStatus::failed;
  std::string reason;  // "skipped: no CUDA device", "killed by signal 11 (Segmentation fault)"
  double seconds = 0;
  std::vector<Measurement> measurements;
  // Cases that reported an error (Google Benchmark's error_occurred): "hostmem/read: ...".
  std::vector<std::string> case_errors;
  // Cases that said "skipped: <reason>" (core/case_messages.hpp): "decode/nvjpeg: no nvJPEG".
  std::vector<std::string> skipped_cases{};
  // Cases whose verifier caught wrong data: "hostmem/memcpy/threads:1: byte 4096 ...".
  std::vector<std::string> wrong_results{};
  // What else the machine did while it ran (measured by the driver); absent in reports written
  // before conditions were measured, and for probes that did not run.
  std::optional<RunConditions> conditions = std::nullopt;
};

}  // namespace pipecheck
