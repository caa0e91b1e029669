// GPU processes and clock events through NVML (see nvml_processes.hpp).
#include "inventory/nvml_processes.hpp"

#include <algorithm>

namespace pipecheck {

namespace {

constexpr nvml::Return insufficient_size = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr unsigned max_processes = 256;

// nvmlProcessInfo_v2_t: the layout of the _v2 entry points (and of _v3, which reads the same).
struct ProcessInfoV2 {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

using RunningProcesses = nvml::Return(nvml::Device, unsigned*, ProcessInfoV2*);

RunningProcesses* resolve_processes(const NvmlLibrary& nvml, const char* kind) {
  const std::string base = std::string("nvmlDeviceGet") + kind + "RunningProcesses";
  if (auto* fn = nvml.resolve<RunningProcesses>((base + "_v2").c_str())) return fn;
  return nvml.resolve<RunningProcesses>((base + "_v3").c_str());
}

// NVML's "no value" for memory under some drivers (NVML_VALUE_NOT_AVAILABLE).
constexpr unsigned long long kNotAvailable = ~0ULL;

}  // namespace

std::vector<NvmlGpuProcess> gpu_running_processes(const NvmlLibrary& nvml, nvml::Device device, std::string& error) {
  std::vector<NvmlGpuProcess> found;
  for (const char* kind : {"Compute", "Graphics"}) {
    RunningProcesses* fn = resolve_processes(nvml, kind);
    if (fn == nullptr) continue;
    std::vector<ProcessInfoV2> infos(max_processes);
    unsigned count = max_processes;
    const nvml::Return code = fn(device, &count, infos.data());
    if (code != nvml::success) {
      if (code != nvml::error_not_supported && code != insufficient_size) {
        error = nvml.error_text(std::string("nvmlDeviceGet") + kind + "RunningProcesses", code);
      }
      if (code != insufficient_size) continue;
      count = max_processes;  // more than we asked for: the first ones still name who is there
    }
    for (unsigned i = 0; i < std::min(count, max_processes); ++i) {
      const auto pid = static_cast<int>(infos[i].pid);
      const auto same = [pid](const NvmlGpuProcess& p) { return p.pid == pid; };
      if (std::find_if(found.begin(), found.end(), same) != found.end()) continue;
      const unsigned long long memory = infos[i].used_gpu_memory == kNotAvailable ? 0 : infos[i].used_gpu_memory;
      found.push_back({pid, memory});
    }
  }
  return found;
}

std::optional<unsigned long long> gpu_clock_event_reasons(const NvmlLibrary& nvml, nvml::Device device) {
  using Reasons = nvml::Return(nvml::Device, unsigned long long*);
  for (const char* name : {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}) {
    unsigned long long mask = 0;
    if (NvmlLibrary::call(nvml.resolve<Reasons>(name), device, &mask) == nvml::success) return mask;
  }
  return std::nullopt;
}

std::vector<NvmlGpuHandle> nvml_gpu_handles(const NvmlLibrary& nvml, std::string& error) {
  std::vector<NvmlGpuHandle> handles;
  if (!nvml.ok()) {
    error = nvml.error();
    return handles;
  }
  unsigned count = 0;
  if (const nvml::Return code = NvmlLibrary::call(nvml.api().device_get_count, &count); code != nvml::success) {
    error = nvml.error_text("nvmlDeviceGetCount_v2", code);
    return handles;
  }
  for (unsigned i = 0; i < count; ++i) {
    NvmlGpuHandle handle;
    if (NvmlLibrary::call(nvml.api().device_get_handle_by_index, i, &handle.device) != nvml::success) continue;
    nvml::PciInfo pci{};
    if (NvmlLibrary::call(nvml.api().device_get_pci_info, handle.device, &pci) == nvml::success) {
      handle.bus_id = pci.bus_id_legacy;
    }
    if (handle.bus_id.empty()) handle.bus_id = "GPU " + std::to_string(i);
    handles.push_back(handle);
  }
  return handles;
}

}  // namespace pipecheck
