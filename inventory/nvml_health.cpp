// nvmlDeviceGetRetiredPagesPendingStatus, nvmlDeviceGetRemappedRows, nvmlDeviceGetTotalEccErrors
// and nvmlDeviceGetCurrentClocksEventReasons for each GPU.
#include "inventory/nvml_health.hpp"

#include <cstring>

#include "inventory/gpu_inventory.hpp"

namespace pipecheck {

namespace {

constexpr int memory_error_uncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int volatile_ecc = 0;              // NVML_VOLATILE_ECC: since the driver loaded

struct HealthApi {
  nvml::Return (*retired_pending)(nvml::Device, int*) = nullptr;
  nvml::Return (*remapped_rows)(nvml::Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  nvml::Return (*total_ecc)(nvml::Device, int, int, unsigned long long*) = nullptr;
  nvml::Return (*clocks_event_reasons)(nvml::Device, unsigned long long*) = nullptr;
  nvml::Return (*throttle_reasons)(nvml::Device, unsigned long long*) = nullptr;  // before r535
};

HealthApi resolve_health_api(const NvmlLibrary& nvml) {
  HealthApi api;
  api.retired_pending = nvml.resolve<nvml::Return(nvml::Device, int*)>("nvmlDeviceGetRetiredPagesPendingStatus");
  api.remapped_rows = nvml.resolve<nvml::Return(nvml::Device, unsigned*, unsigned*, unsigned*, unsigned*)>(
      "nvmlDeviceGetRemappedRows");
  api.total_ecc = nvml.resolve<nvml::Return(nvml::Device, int, int, unsigned long long*)>("nvmlDeviceGetTotalEccErrors");
  api.clocks_event_reasons =
      nvml.resolve<nvml::Return(nvml::Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksEventReasons");
  api.throttle_reasons =
      nvml.resolve<nvml::Return(nvml::Device, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
  return api;
}

GpuHealth query_one(const NvmlLibrary& nvml, const HealthApi& api, nvml::Device device, const std::string& bus_id) {
  GpuHealth health;
  health.bus_id = bus_id;
  auto answered = [&](const char* call, nvml::Return rc) {
    if (rc == nvml::success) return true;
    // Not supported (a GPU without ECC, pre-Ampere without row remapping) leaves the fact unknown.
    if (rc != nvml::error_not_supported && rc != nvml::error_function_not_found) {
      health.errors.push_back(nvml.error_text(call, rc, bus_id));
    }
    return false;
  };
  char name[nvml::string_buffer_size] = {};
  if (NvmlLibrary::call(nvml.api().device_get_name, device, name, sizeof name) == nvml::success) {
    health.name = std::string(name, strnlen(name, sizeof name));
  }
  int pending = 0;
  if (answered("nvmlDeviceGetRetiredPagesPendingStatus", NvmlLibrary::call(api.retired_pending, device, &pending))) {
    health.retired_pages_pending = pending == nvml::feature_enabled;
  }
  unsigned corrected_rows = 0, uncorrected_rows = 0, remap_pending = 0, remap_failed = 0;
  if (answered("nvmlDeviceGetRemappedRows", NvmlLibrary::call(api.remapped_rows, device, &corrected_rows,
                                                               &uncorrected_rows, &remap_pending, &remap_failed))) {
    health.row_remap_pending = remap_pending != 0;
    health.row_remap_failed = remap_failed != 0;
    health.rows_remapped_uncorrectable = uncorrected_rows;
  }
  unsigned long long errors = 0;
  if (answered("nvmlDeviceGetTotalEccErrors",
               NvmlLibrary::call(api.total_ecc, device, memory_error_uncorrected, volatile_ecc, &errors))) {
    health.ecc_volatile_uncorrected = errors;
  }
  unsigned long long mask = 0;
  nvml::Return rc = NvmlLibrary::call(api.clocks_event_reasons, device, &mask);
  if (rc == nvml::error_function_not_found) rc = NvmlLibrary::call(api.throttle_reasons, device, &mask);
  if (answered("nvmlDeviceGetCurrentClocksEventReasons", rc)) health.clock_event_mask = mask;
  return health;
}

}  // namespace

std::vector<GpuHealth> query_gpu_health(const NvmlLibrary& nvml) {
  std::vector<GpuHealth> gpus;
  if (!nvml.ok()) return gpus;
  const HealthApi api = resolve_health_api(nvml);
  unsigned count = 0;
  if (NvmlLibrary::call(nvml.api().device_get_count, &count) != nvml::success) return gpus;
  for (unsigned index = 0; index < count; ++index) {
    nvml::Device device = nullptr;
    const std::string where = "index " + std::to_string(index);
    nvml::Return rc = NvmlLibrary::call(nvml.api().device_get_handle_by_index, index, &device);
    if (rc != nvml::success) {
      GpuHealth lost;
      lost.bus_id = where;
      lost.errors.push_back(nvml.error_text("nvmlDeviceGetHandleByIndex_v2", rc, where));
      gpus.push_back(lost);
      continue;
    }
    nvml::PciInfo pci{};
    rc = NvmlLibrary::call(nvml.api().device_get_pci_info, device, &pci);
    std::string bus_id = where;
    if (rc == nvml::success) {
      bus_id = normalize_bdf(std::string(pci.bus_id, strnlen(pci.bus_id, sizeof pci.bus_id)))
                   .value_or(format_bdf(pci.domain, pci.bus, pci.device));
    }
    gpus.push_back(query_one(nvml, api, device, bus_id));
    if (rc != nvml::success) gpus.back().errors.push_back(nvml.error_text("nvmlDeviceGetPciInfo_v3", rc, where));
  }
  return gpus;
}

}  // namespace pipecheck
