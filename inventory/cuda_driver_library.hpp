// The CUDA driver API (libcuda.so.1, installed with the NVIDIA driver) loaded at run time with
// dlopen, as NVML is: the `pipecheck` command links no CUDA library, so it starts on a node with
// the driver but without a CUDA toolkit, and on one without either. The GPU probes link CUDA
// themselves.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pipecheck {

// The driver API types and constants pipecheck uses, declared from NVIDIA's cuda.h (a stable
// ABI; tests/cuda_driver_library_test.cpp holds them against cuda.h where the toolkit is).
namespace cu {

using Result = int;          // CUresult
using Device = int;          // CUdevice
struct ContextOpaque;
using Context = ContextOpaque*;          // CUcontext
using DevicePointer = unsigned long long;  // CUdeviceptr (64-bit)

constexpr Result success = 0;
constexpr Result error_not_initialized = 3;
constexpr Result error_no_device = 100;

// CUdevice_attribute
constexpr int attribute_clock_rate = 13;              // kHz
constexpr int attribute_multiprocessor_count = 16;
constexpr int attribute_pci_bus_id = 33;
constexpr int attribute_pci_device_id = 34;
constexpr int attribute_memory_clock_rate = 36;       // kHz
constexpr int attribute_global_memory_bus_width = 37;  // bits
constexpr int attribute_l2_cache_size = 38;           // bytes
constexpr int attribute_pci_domain_id = 50;
constexpr int attribute_compute_capability_major = 75;
constexpr int attribute_compute_capability_minor = 76;

}  // namespace cu

// The entry points pipecheck calls; each may be null on a driver that lacks it (only those in
// CudaDriverLibrary's required list are guaranteed once loaded).
struct CudaDriverApi {
  cu::Result (*init)(unsigned) = nullptr;                                   // cuInit
  cu::Result (*driver_get_version)(int*) = nullptr;                         // cuDriverGetVersion
  cu::Result (*get_error_string)(cu::Result, const char**) = nullptr;       // cuGetErrorString
  cu::Result (*device_get_count)(int*) = nullptr;                           // cuDeviceGetCount
  cu::Result (*device_get)(cu::Device*, int) = nullptr;                     // cuDeviceGet
  cu::Result (*device_get_name)(char*, int, cu::Device) = nullptr;          // cuDeviceGetName
  cu::Result (*device_total_mem)(std::size_t*, cu::Device) = nullptr;       // cuDeviceTotalMem_v2
  cu::Result (*device_get_attribute)(int*, int, cu::Device) = nullptr;      // cuDeviceGetAttribute
  cu::Result (*primary_ctx_retain)(cu::Context*, cu::Device) = nullptr;     // cuDevicePrimaryCtxRetain
  cu::Result (*primary_ctx_release)(cu::Device) = nullptr;                  // cuDevicePrimaryCtxRelease_v2
  cu::Result (*ctx_set_current)(cu::Context) = nullptr;                     // cuCtxSetCurrent
  cu::Result (*mem_alloc)(cu::DevicePointer*, std::size_t) = nullptr;       // cuMemAlloc_v2
  cu::Result (*mem_free)(cu::DevicePointer) = nullptr;                      // cuMemFree_v2
  cu::Result (*memset_d32)(cu::DevicePointer, unsigned, std::size_t) = nullptr;  // cuMemsetD32_v2
  cu::Result (*memcpy_dtoh)(void*, cu::DevicePointer, std::size_t) = nullptr;    // cuMemcpyDtoH_v2
};

// libcuda.so.1 loaded and cuInit(0) called. Never throws: when the library, a required symbol
// or cuInit fails, ok() is false and error() says why ("libcuda.so.1 not found (no NVIDIA
// driver): ...", "cuInit: no CUDA-capable device is detected (100)").
class CudaDriverLibrary {
 public:
  static constexpr const char* default_path = "libcuda.so.1";

  explicit CudaDriverLibrary(std::string path = default_path);
  ~CudaDriverLibrary();
  CudaDriverLibrary(const CudaDriverLibrary&) = delete;
  CudaDriverLibrary& operator=(const CudaDriverLibrary&) = delete;

  bool loaded() const { return handle_ != nullptr; }  // the library is there (cuInit may still fail)
  bool ok() const { return initialised_; }
  const std::string& error() const { return error_; }
  const CudaDriverApi& api() const { return api_; }
  // The driver's CUDA version (cuDriverGetVersion, 13000 = 13.0) once loaded, even when cuInit
  // failed; 0 when unknown.
  int driver_version() const { return driver_version_; }

  // The driver's own text for a result ("out of memory"), or "CUDA error 2" without it.
  std::string error_string(cu::Result code) const;
  // The one driver-API error helper: "cuMemAlloc_v2 (GPU 0): out of memory (2)".
  std::string error_text(std::string_view call_name, cu::Result code, std::string_view device = {}) const;

 private:
  void close();

  std::string path_;
  void* handle_ = nullptr;
  bool initialised_ = false;
  int driver_version_ = 0;
  std::string error_;
  CudaDriverApi api_;
};

// Whether a GPU answers compute: its primary context created, 64 KiB allocated, filled with a
// pattern on the device and read back. Empty when it did; else the failing call and why.
std::string cuda_device_answers(const CudaDriverLibrary& cuda, int ordinal);

}  // namespace pipecheck
