// CUDA's view of the GPUs: raw facts from the driver API (cuDeviceGetAttribute), loaded at run
// time (inventory/cuda_driver_library), so it needs no CUDA toolkit to build or to run.
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
  bool cuda_built = false;             // this build has the GPU probes (a CUDA toolkit)
  std::optional<int> runtime_version;  // the CUDA runtime the GPU parts were built with, 13000 = 13.0
  std::optional<int> driver_version;   // cuDriverGetVersion; absent when no driver
  // Why no device is usable: "libcuda.so.1 not found (no NVIDIA driver): ...", or cuInit's or
  // cuDeviceGetCount's error ("cuInit: no CUDA-capable device is detected (100)").
  std::string error;
  std::vector<CudaDeviceFacts> devices;
  std::vector<std::string> device_errors;  // a device whose properties could not be read
};

class CudaDriverLibrary;

// Asks the CUDA driver (libcuda.so.1, loaded here). Never throws.
CudaReport query_cuda_devices();
// The same with a driver library already loaded (a test's, or one kept for more calls).
CudaReport query_cuda_devices(const CudaDriverLibrary& cuda);
// The CUDA runtime version this build's GPU parts use (CMake's CUDAToolkit_VERSION), nullopt
// without a CUDA toolkit.
std::optional<int> built_cuda_runtime_version();

}  // namespace pipecheck
