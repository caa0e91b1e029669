// The NVML entry points the noise-aware driver needs beyond the inventory's, resolved by name
// from the loaded library: the processes running on a GPU (compute and graphics) and its current
// clock-event (throttle) reasons. A driver without an entry point answers "not supported".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inventory/nvml_library.hpp"

namespace pipecheck {

struct NvmlGpuProcess {
  int pid = 0;
  unsigned long long used_memory_bytes = 0;  // 0 where NVML does not say
};

// Compute and graphics processes on `device` (nvmlDeviceGet{Compute,Graphics}RunningProcesses_v2,
// else _v3); each pid once. `error` says why when NVML refused.
std::vector<NvmlGpuProcess> gpu_running_processes(const NvmlLibrary& nvml, nvml::Device device, std::string& error);

// nvmlDeviceGetCurrentClocksEventReasons (else ...ThrottleReasons); nullopt when neither answers.
std::optional<unsigned long long> gpu_clock_event_reasons(const NvmlLibrary& nvml, nvml::Device device);

// Every GPU NVML sees: its handle and PCI bus id ("0000:17:00.0"), in NVML's order.
struct NvmlGpuHandle {
  nvml::Device device = nullptr;
  std::string bus_id;
};
std::vector<NvmlGpuHandle> nvml_gpu_handles(const NvmlLibrary& nvml, std::string& error);

}  // namespace pipecheck
