// Loading NVML with dlopen and resolving its entry points by name; errors become reason strings.
#include "inventory/nvml_library.hpp"

#include <dlfcn.h>

#include <utility>

#include "core/dl_symbol.hpp"

namespace pipecheck {

NvmlLibrary::NvmlLibrary(std::string path) : path_(std::move(path)) {
  // RTLD_LOCAL: NVML's symbols must not leak into the global namespace of the probe process.
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = dlerror();
    error_ = "NVML: " + path_ + " not found: " + (why ? why : "unknown dlopen error");
    return;
  }
  bind_symbol(handle_, "nvmlInit_v2", api_.init);
  bind_symbol(handle_, "nvmlShutdown", api_.shutdown);
  bind_symbol(handle_, "nvmlErrorString", api_.error_string);
  bind_symbol(handle_, "nvmlSystemGetDriverVersion", api_.system_get_driver_version);
  bind_symbol(handle_, "nvmlSystemGetCudaDriverVersion_v2", api_.system_get_cuda_driver_version);
  bind_symbol(handle_, "nvmlDeviceGetCount_v2", api_.device_get_count);
  bind_symbol(handle_, "nvmlDeviceGetHandleByIndex_v2", api_.device_get_handle_by_index);
  bind_symbol(handle_, "nvmlDeviceGetHandleByPciBusId_v2", api_.device_get_handle_by_pci_bus_id);
  bind_symbol(handle_, "nvmlDeviceGetName", api_.device_get_name);
  bind_symbol(handle_, "nvmlDeviceGetUUID", api_.device_get_uuid);
  bind_symbol(handle_, "nvmlDeviceGetPciInfo_v3", api_.device_get_pci_info);
  bind_symbol(handle_, "nvmlDeviceGetMaxClockInfo", api_.device_get_max_clock_info);
  bind_symbol(handle_, "nvmlDeviceGetCurrPcieLinkGeneration", api_.device_get_curr_pcie_link_generation);
  bind_symbol(handle_, "nvmlDeviceGetCurrPcieLinkWidth", api_.device_get_curr_pcie_link_width);
  bind_symbol(handle_, "nvmlDeviceGetMaxPcieLinkGeneration", api_.device_get_max_pcie_link_generation);
  bind_symbol(handle_, "nvmlDeviceGetMaxPcieLinkWidth", api_.device_get_max_pcie_link_width);
  bind_symbol(handle_, "nvmlDeviceGetEnforcedPowerLimit", api_.device_get_enforced_power_limit);
  bind_symbol(handle_, "nvmlDeviceGetMemoryBusWidth", api_.device_get_memory_bus_width);
  bind_symbol(handle_, "nvmlDeviceGetNvLinkState", api_.device_get_nvlink_state);
  bind_symbol(handle_, "nvmlDeviceGetNvLinkVersion", api_.device_get_nvlink_version);
  bind_symbol(handle_, "nvmlDeviceGetMemoryInfo", api_.device_get_memory_info);

  // Without these nothing can be enumerated; everything else is optional per driver.
  if (const char* missing = first_missing_symbol({
      {"nvmlInit_v2", api_.init != nullptr},
      {"nvmlShutdown", api_.shutdown != nullptr},
      {"nvmlErrorString", api_.error_string != nullptr},
      {"nvmlDeviceGetCount_v2", api_.device_get_count != nullptr},
      {"nvmlDeviceGetHandleByIndex_v2", api_.device_get_handle_by_index != nullptr},
      })) {
    error_ = "NVML: " + path_ + " lacks " + missing + " (not NVML, or a driver too old)";
    close();
    return;
  }
  const nvml::Return rc = api_.init();
  if (rc != nvml::success) {
    error_ = "NVML: " + error_text("nvmlInit_v2", rc);
    close();
    return;
  }
  initialised_ = true;
}

NvmlLibrary::~NvmlLibrary() { close(); }

void NvmlLibrary::close() {
  if (initialised_ && api_.shutdown) api_.shutdown();
  initialised_ = false;
  if (handle_) dlclose(handle_);
  handle_ = nullptr;
  api_ = NvmlApi{};
}

void* NvmlLibrary::resolve_raw(const char* name) const {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

std::string NvmlLibrary::error_string(nvml::Return code) const {
  const char* text = api_.error_string ? api_.error_string(code) : nullptr;
  if (text && *text) return text;
  // Without the library (or before it loads) the codes pipecheck branches on still read well.
  switch (code) {
    case nvml::success:
      return "Success";
    case nvml::error_uninitialized:
      return "Uninitialized";
    case nvml::error_invalid_argument:
      return "Invalid Argument";
    case nvml::error_not_supported:
      return "Not Supported";
    case nvml::error_no_permission:
      return "Insufficient Permissions";
    case nvml::error_not_found:
      return "Not Found";
    case nvml::error_driver_not_loaded:
      return "Driver Not Loaded";
    case nvml::error_timeout:
      return "Timeout";
    case nvml::error_function_not_found:
      return "Function Not Found";
    case nvml::error_gpu_is_lost:
      return "GPU is lost";
    default:
      return "unknown NVML error";
  }
}

std::string NvmlLibrary::error_text(std::string_view call_name, nvml::Return code,
                                    std::string_view device) const {
  std::string text(call_name);
  if (!device.empty()) {
    text += " (";
    text += device;
    text += ")";
  }
  text += ": " + error_string(code) + " (" + std::to_string(code) + ")";
  return text;
}

nvml::Return NvmlLibrary::device_by_bus_id(const std::string& bus_id, nvml::Device* device) const {
  return call(api_.device_get_handle_by_pci_bus_id, bus_id.c_str(), device);
}

}  // namespace pipecheck
