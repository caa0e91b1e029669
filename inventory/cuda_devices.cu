// CUDA runtime queries for the inventory: only CUDA calls, no interpretation (that is in
// gpu_inventory.cpp, where it is unit-tested without a GPU).
#include <cuda_runtime_api.h>

#include "inventory/cuda_devices.hpp"

namespace pipecheck {

namespace {

std::optional<int> attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) {
    cudaGetLastError();  // reset the last-error slot so later callers do not see this one
    return std::nullopt;
  }
  return value;
}

}  // namespace

CudaReport query_cuda_devices() {
  CudaReport report;
  report.cuda_built = true;
  int version = 0;
  if (cudaRuntimeGetVersion(&version) == cudaSuccess) report.runtime_version = version;
  // Without a driver cudaDriverGetVersion succeeds with 0.
  if (cudaDriverGetVersion(&version) == cudaSuccess && version > 0) report.driver_version = version;

  int count = 0;
  const cudaError_t count_rc = cudaGetDeviceCount(&count);
  if (count_rc != cudaSuccess) {
    report.error = cudaGetErrorString(count_rc);
    cudaGetLastError();
    return report;
  }
  for (int index = 0; index < count; ++index) {
    cudaDeviceProp prop{};
    const cudaError_t rc = cudaGetDeviceProperties(&prop, index);
    if (rc != cudaSuccess) {
      report.device_errors.push_back("cudaGetDeviceProperties(" + std::to_string(index) +
                                     "): " + cudaGetErrorString(rc));
      cudaGetLastError();
      continue;
    }
    CudaDeviceFacts device;
    device.index = index;
    device.name = prop.name;
    device.cc_major = prop.major;
    device.cc_minor = prop.minor;
    device.total_memory_bytes = prop.totalGlobalMem;
    device.l2_bytes = prop.l2CacheSize;
    device.pci_domain = static_cast<unsigned>(prop.pciDomainID);
    device.pci_bus = static_cast<unsigned>(prop.pciBusID);
    device.pci_device = static_cast<unsigned>(prop.pciDeviceID);
    // CUDA 13 removed cudaDeviceProp.clockRate/memoryClockRate: attributes only.
    device.sm_count = attribute(cudaDevAttrMultiProcessorCount, index);
    device.max_sm_clock_khz = attribute(cudaDevAttrClockRate, index);
    device.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, index);
    device.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, index);
    report.devices.push_back(device);
  }
  return report;
}

}  // namespace pipecheck
