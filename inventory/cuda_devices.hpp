// The CUDA runtime's view of the GPUs: raw facts from cudaGetDeviceProperties and
// cudaDeviceGetAttribute. cuda_devices.cu fills it with CUDA; cuda_devices_nocuda.cpp says "not
// built".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

struct CudaDeviceFacts {
  int index = -1;  // CUDA ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  std::optional<int> sm_count;               // cudaDevAttrMultiProcessorCount
  std::optional<int> max_sm_clock_khz;       // cudaDevAttrClockRate
  std::optional<int> memory_clock_khz;       // cudaDevAttrMemoryClockRate
  std::optional<int> memory_bus_width_bits;  // cudaDevAttrGlobalMemoryBusWidth
  std::uint64_t total_memory_bytes = 0;
  std::optional<int> l2_bytes;
  // PCI location; CUDA has no function number (GPUs are function 0). format_bdf() in
  // gpu_inventory.hpp turns it into "0000:17:00.0".
  unsigned pci_domain = 0;
  unsigned pci_bus = 0;
  unsigned pci_device = 0;
};

struct CudaReport {
  bool cuda_built = false;
  std::optional<int> runtime_version;  // cudaRuntimeGetVersion, 13000 = 13.0
  std::optional<int> driver_version;   // cudaDriverGetVersion; absent when no driver (0)
  // Why no device is usable: cudaGetDeviceCount's error ("CUDA driver version is insufficient
  // for CUDA runtime version" means no driver, or one older than the runtime), or "not built: ...".
  std::string error;
  std::vector<CudaDeviceFacts> devices;
  std::vector<std::string> device_errors;  // a device whose properties could not be read
};

// Queries the CUDA runtime. Never throws; without CUDA returns cuda_built=false.
CudaReport query_cuda_devices();

}  // namespace pipecheck
