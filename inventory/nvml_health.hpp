// The NVML calls of `pipecheck check` beyond the inventory's: retired pages and remapped rows
// pending, volatile double-bit ECC errors, the clock-event (throttle) reasons now. Resolved by
// name from the shared NvmlLibrary; a call this GPU or driver lacks leaves its fact unknown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inventory/nvml_library.hpp"

namespace pipecheck {

// What NVML says of one GPU's health now.
struct GpuHealth {
  std::string bus_id;  // "0000:17:00.0"
  std::string name;
  std::optional<bool> retired_pages_pending;  // nvmlDeviceGetRetiredPagesPendingStatus (pre-Ampere)
  std::optional<bool> row_remap_pending;      // nvmlDeviceGetRemappedRows (Ampere and later)
  std::optional<bool> row_remap_failed;
  std::optional<unsigned> rows_remapped_uncorrectable;
  std::optional<std::uint64_t> ecc_volatile_uncorrected;  // double-bit errors since the driver loaded
  std::optional<std::uint64_t> clock_event_mask;          // nvmlDeviceGetCurrentClocksEventReasons
  std::vector<std::string> errors;  // failed calls other than "not supported" ("GPU is lost")
};

// What NVML says of each GPU it sees now, in NVML's order, keyed by bus id. With !nvml.ok(),
// nothing (the caller says why).
std::vector<GpuHealth> query_gpu_health(const NvmlLibrary& nvml);

}  // namespace pipecheck
