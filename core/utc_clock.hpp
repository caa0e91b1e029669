// The wall clock as the records write it: UTC, ISO 8601, milliseconds.
#pragma once

#include <string>

namespace pipecheck {

// ISO 8601 UTC with milliseconds: "2026-11-30T09:00:01.250Z".
std::string utc_now_iso_ms();

}  // namespace pipecheck
