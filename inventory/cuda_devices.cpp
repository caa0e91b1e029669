// The CUDA view of the GPUs through the driver API (loaded at run time: inventory/
// cuda_driver_library), so the command that collects the inventory links no CUDA library. Only
// the calls are here; their interpretation is in gpu_inventory.cpp.
#include "inventory/cuda_devices.hpp"

#include <cstring>

#include "inventory/cuda_driver_library.hpp"
#include "pipecheck_config.hpp"

namespace pipecheck {

namespace {

std::optional<int> attribute(const CudaDriverLibrary& cuda, int attr, cu::Device device) {
  int value = 0;
  if (cuda.api().device_get_attribute(&value, attr, device) != cu::success) return std::nullopt;
  return value;
}

CudaDeviceFacts device_facts(const CudaDriverLibrary& cuda, int ordinal, cu::Device device) {
  const CudaDriverApi& api = cuda.api();
  CudaDeviceFacts facts;
  facts.index = ordinal;
  char name[256] = {};
  if (api.device_get_name && api.device_get_name(name, sizeof name - 1, device) == cu::success) {
    facts.name = std::string(name, strnlen(name, sizeof name));
  }
  std::size_t bytes = 0;
  if (api.device_total_mem && api.device_total_mem(&bytes, device) == cu::success) {
    facts.total_memory_bytes = bytes;
  }
  facts.cc_major = attribute(cuda, cu::attribute_compute_capability_major, device).value_or(0);
  facts.cc_minor = attribute(cuda, cu::attribute_compute_capability_minor, device).value_or(0);
  facts.sm_count = attribute(cuda, cu::attribute_multiprocessor_count, device);
  facts.max_sm_clock_khz = attribute(cuda, cu::attribute_clock_rate, device);
  facts.memory_clock_khz = attribute(cuda, cu::attribute_memory_clock_rate, device);
  facts.memory_bus_width_bits = attribute(cuda, cu::attribute_global_memory_bus_width, device);
  facts.l2_bytes = attribute(cuda, cu::attribute_l2_cache_size, device);
  facts.pci_domain = static_cast<unsigned>(attribute(cuda, cu::attribute_pci_domain_id, device).value_or(0));
  facts.pci_bus = static_cast<unsigned>(attribute(cuda, cu::attribute_pci_bus_id, device).value_or(0));
  facts.pci_device = static_cast<unsigned>(attribute(cuda, cu::attribute_pci_device_id, device).value_or(0));
  return facts;
}

}  // namespace

std::optional<int> built_cuda_runtime_version() {
  if (PIPECHECK_CUDA_RUNTIME_VERSION > 0) return PIPECHECK_CUDA_RUNTIME_VERSION;
  return std::nullopt;
}

CudaReport query_cuda_devices(const CudaDriverLibrary& cuda) {
  CudaReport report;
  report.cuda_built = PIPECHECK_HAVE_CUDA == 1;
  report.runtime_version = built_cuda_runtime_version();
  if (cuda.driver_version() > 0) report.driver_version = cuda.driver_version();
  if (!cuda.ok()) {
    report.error = cuda.error();
    return report;
  }
  int count = 0;
  const cu::Result count_rc = cuda.api().device_get_count(&count);
  if (count_rc != cu::success) {
    report.error = cuda.error_text("cuDeviceGetCount", count_rc);
    return report;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cu::Device device = 0;
    const cu::Result rc = cuda.api().device_get(&device, ordinal);
    if (rc != cu::success) {
      report.device_errors.push_back(cuda.error_text("cuDeviceGet", rc, "GPU " + std::to_string(ordinal)));
      continue;
    }
    report.devices.push_back(device_facts(cuda, ordinal, device));
  }
  return report;
}

CudaReport query_cuda_devices() {
  const CudaDriverLibrary cuda;
  return query_cuda_devices(cuda);
}

}  // namespace pipecheck
