// How a probe's reason is shown beside its status, in every output that prints both.
#pragma once

#include <string>

#include "core/probe_outcome.hpp"

namespace pipecheck {

// The reason without the status word it may start with ("skipped: no CUDA device" under status
// skipped reads "no CUDA device"), so a line never says "skipped - skipped: no CUDA device".
inline std::string reason_beside_status(const ProbeOutcome& outcome) {
  const std::string word = std::string(to_string(outcome.status)) + ": ";
  return outcome.reason.rfind(word, 0) == 0 ? outcome.reason.substr(word.size()) : outcome.reason;
}

}  // namespace pipecheck
