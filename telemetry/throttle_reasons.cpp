// Decoding clock-event reason bits to names and back.
#include "telemetry/throttle_reasons.hpp"

#include <cstdio>
#include <cstdlib>

namespace pipecheck {

const std::vector<ClockEventReason>& clock_event_reasons() {
  static const std::vector<ClockEventReason> reasons = {
      {0x1, "GpuIdle", false},
      {0x2, "ApplicationsClocksSetting", false},
      {0x4, "SwPowerCap", false},
      {0x8, "HwSlowdown", true},
      {0x10, "SyncBoost", false},
      {0x20, "SwThermalSlowdown", true},
      {0x40, "HwThermalSlowdown", true},
      {0x80, "HwPowerBrakeSlowdown", true},
      {0x100, "DisplayClockSetting", false},
  };
  return reasons;
}

namespace {

const ClockEventReason* reason_of_bit(std::uint64_t bit) {
  for (const auto& reason : clock_event_reasons()) {
    if (reason.bit == bit) return &reason;
  }
  return nullptr;
}

std::string unknown_name(std::uint64_t bit) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "Unknown0x%llx", static_cast<unsigned long long>(bit));
  return buffer;
}

}  // namespace

std::vector<std::string> decode_clock_event_reasons(std::uint64_t mask) {
  std::vector<std::string> names;
  for (int shift = 0; shift < 64; ++shift) {
    const std::uint64_t bit = std::uint64_t{1} << shift;
    if ((mask & bit) == 0) continue;
    const ClockEventReason* reason = reason_of_bit(bit);
    names.push_back(reason ? reason->name : unknown_name(bit));
  }
  return names;
}

std::string clock_event_reasons_text(std::uint64_t mask) {
  std::string text;
  for (const auto& name : decode_clock_event_reasons(mask)) {
    if (!text.empty()) text += '|';
    text += name;
  }
  return text;
}

std::optional<std::uint64_t> parse_clock_event_reasons(std::string_view text) {
  std::uint64_t mask = 0;
  while (!text.empty()) {
    const std::size_t bar = text.find('|');
    const std::string name(text.substr(0, bar));
    text = bar == std::string_view::npos ? std::string_view{} : text.substr(bar + 1);
    bool known = false;
    for (const auto& reason : clock_event_reasons()) {
      if (name == reason.name) {
        mask |= reason.bit;
        known = true;
      }
    }
    if (!known && name.rfind("Unknown0x", 0) == 0) {
      char* end = nullptr;
      const unsigned long long bit = std::strtoull(name.c_str() + 9, &end, 16);
      known = end && *end == '\0' && bit != 0;
      mask |= bit;
    }
    if (!known) return std::nullopt;
  }
  return mask;
}

std::uint64_t failing_clock_event_bits(std::uint64_t mask) {
  std::uint64_t failing = 0;
  for (const auto& reason : clock_event_reasons()) {
    if (reason.fails_burn && (mask & reason.bit) != 0) failing |= reason.bit;
  }
  return failing;
}

}  // namespace pipecheck
