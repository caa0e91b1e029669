// NVML clock-event (throttle) reasons: the bit mask from nvmlDeviceGetCurrentClocksEventReasons
// as names, and which of them mean the GPU was held back by heat or hardware protection.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipecheck {

struct ClockEventReason {
  std::uint64_t bit;
  const char* name;
  // Thermal or hardware slowdown: a burn that hits these fails (gpu-fryer's rule). SwPowerCap is
  // not among them: a GEMM burn at the power limit is exactly what it is meant to reach.
  bool fails_burn;
};

// Every reason pipecheck names, in bit order (values from nvml.h; see REFERENCE.md).
const std::vector<ClockEventReason>& clock_event_reasons();

// Names of the set bits in bit order; unknown bits as "Unknown0x200". Bits are tested one by
// one: the mask is never compared whole, since several reasons are usually set together.
std::vector<std::string> decode_clock_event_reasons(std::uint64_t mask);
// The names joined with '|' ("SwPowerCap|HwSlowdown"); "" for no reason.
std::string clock_event_reasons_text(std::uint64_t mask);
// Back from the CSV cell; nullopt when a name is neither known nor "Unknown0x...".
std::optional<std::uint64_t> parse_clock_event_reasons(std::string_view text);
// The bits among `mask` that fail a burn (thermal and hardware slowdowns).
std::uint64_t failing_clock_event_bits(std::uint64_t mask);

}  // namespace pipecheck
