// NVML (libnvidia-ml.so.1) loaded at run time with dlopen, so that pipecheck builds without an
// NVML header and runs without a driver. Shared by the inventory and the stress telemetry sampler.
#pragma once

#include <string>
#include <string_view>

namespace pipecheck {

// The NVML types and constants pipecheck uses, declared here from NVIDIA's nvml.h (the ABI is
// stable; there is no header on build machines without a driver).
namespace nvml {

using Return = int;  // nvmlReturn_t
struct DeviceOpaque;
using Device = DeviceOpaque*;  // nvmlDevice_t

constexpr Return success = 0;
constexpr Return error_uninitialized = 1;
constexpr Return error_invalid_argument = 2;
constexpr Return error_not_supported = 3;
constexpr Return error_no_permission = 4;
constexpr Return error_not_found = 6;
constexpr Return error_driver_not_loaded = 9;
constexpr Return error_timeout = 10;
constexpr Return error_function_not_found = 13;
constexpr Return error_gpu_is_lost = 15;

// nvmlClockType_t
constexpr unsigned clock_graphics = 0;
constexpr unsigned clock_sm = 1;
constexpr unsigned clock_mem = 2;

// nvmlEnableState_t
constexpr int feature_enabled = 1;

// NVLink links probed per device; later parts have up to 18, newer headers allow 36 and the
// driver answers "invalid argument" past the last one.
constexpr unsigned nvlink_max_links = 36;

// Buffer sizes large enough for every NVML string query (nvml.h uses 80 and 96).
constexpr unsigned string_buffer_size = 128;

// nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it.
struct PciInfo {
  char bus_id_legacy[16];  // "0000:17:00.0"
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;  // (device id << 16) | vendor id
  unsigned int pci_subsystem_id;
  char bus_id[32];  // "00000000:17:00.0"
};

// nvmlMemory_t (v1).
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

}  // namespace nvml

// The entry points the inventory uses. Each may be null when this driver lacks it (only the
// ones NvmlLibrary::required_symbols names are guaranteed once loaded).
struct NvmlApi {
  nvml::Return (*init)() = nullptr;                     // nvmlInit_v2
  nvml::Return (*shutdown)() = nullptr;                 // nvmlShutdown
  const char* (*error_string)(nvml::Return) = nullptr;  // nvmlErrorString
  nvml::Return (*system_get_driver_version)(char*, unsigned) = nullptr;
  nvml::Return (*system_get_cuda_driver_version)(int*) = nullptr;                         // _v2
  nvml::Return (*device_get_count)(unsigned*) = nullptr;                                  // _v2
  nvml::Return (*device_get_handle_by_index)(unsigned, nvml::Device*) = nullptr;          // _v2
  nvml::Return (*device_get_handle_by_pci_bus_id)(const char*, nvml::Device*) = nullptr;  // _v2
  nvml::Return (*device_get_name)(nvml::Device, char*, unsigned) = nullptr;
  nvml::Return (*device_get_uuid)(nvml::Device, char*, unsigned) = nullptr;
  nvml::Return (*device_get_pci_info)(nvml::Device, nvml::PciInfo*) = nullptr;  // _v3
  nvml::Return (*device_get_max_clock_info)(nvml::Device, unsigned, unsigned*) = nullptr;
  nvml::Return (*device_get_curr_pcie_link_generation)(nvml::Device, unsigned*) = nullptr;
  nvml::Return (*device_get_curr_pcie_link_width)(nvml::Device, unsigned*) = nullptr;
  nvml::Return (*device_get_max_pcie_link_generation)(nvml::Device, unsigned*) = nullptr;
  nvml::Return (*device_get_max_pcie_link_width)(nvml::Device, unsigned*) = nullptr;
  nvml::Return (*device_get_enforced_power_limit)(nvml::Device, unsigned*) = nullptr;  // mW
  nvml::Return (*device_get_memory_bus_width)(nvml::Device, unsigned*) = nullptr;
  nvml::Return (*device_get_nvlink_state)(nvml::Device, unsigned, int*) = nullptr;
  nvml::Return (*device_get_nvlink_version)(nvml::Device, unsigned, unsigned*) = nullptr;
  nvml::Return (*device_get_memory_info)(nvml::Device, nvml::Memory*) = nullptr;
};

// One loaded and initialised NVML. Never throws and never exits: when the library, a required
// symbol or nvmlInit_v2 fails, ok() is false and error() says why, e.g.
// "NVML: libnvidia-ml.so.1 not found: libnvidia-ml.so.1: cannot open shared object file: ...".
// Callers that need more entry points (the telemetry sampler) resolve them by name with
// resolve<>() and call them through call(), which turns a missing symbol into
// nvml::error_function_not_found instead of a null call.
class NvmlLibrary {
 public:
  static constexpr const char* default_path = "libnvidia-ml.so.1";

  explicit NvmlLibrary(std::string path = default_path);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  bool ok() const { return initialised_; }
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }
  const NvmlApi& api() const { return api_; }

  // A symbol of the loaded library by name, or null (missing symbol or library not loaded).
  template <typename Signature>
  Signature* resolve(const char* name) const {
    return reinterpret_cast<Signature*>(resolve_raw(name));
  }

  // Calls an optional entry point: a null pointer answers error_function_not_found.
  template <typename Fn, typename... Args>
  static nvml::Return call(Fn* fn, Args... args) {
    return fn ? fn(args...) : nvml::error_function_not_found;
  }

  // NVML's own text for a return code ("GPU is lost"), or "NVML error 15" without the library.
  std::string error_string(nvml::Return code) const;
  // The one NVML error helper: names the call, the device and NVML's text, e.g.
  // "nvmlDeviceGetPciInfo_v3 (0000:17:00.0): GPU is lost (15)".
  std::string error_text(std::string_view call_name, nvml::Return code,
                         std::string_view device = {}) const;

  // nvmlDeviceGetHandleByPciBusId_v2 for a bus id in any accepted form ("0000:17:00.0").
  nvml::Return device_by_bus_id(const std::string& bus_id, nvml::Device* device) const;

 private:
  void* resolve_raw(const char* name) const;
  void close();

  std::string path_;
  void* handle_ = nullptr;
  bool initialised_ = false;
  std::string error_;
  NvmlApi api_;
};

}  // namespace pipecheck
