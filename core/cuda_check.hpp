// One error helper per GPU API family (CUDA runtime, cuBLAS/cuBLASLt): a failed call becomes a
// CudaError naming the call, the device and the library's own error string (STYLE 5).
#pragma once

#include <string>

#include "core/errors.hpp"

namespace pipecheck {

// A CUDA or cuBLAS call failed. A RunError, so a probe's main reports it as "could not run"
// and the driver records it; Google Benchmark cases turn it into SkipWithError.
class CudaError : public RunError {
 public:
  using RunError::RunError;
};

// "cudaMalloc(&p, bytes) on GPU 0 (0000:17:00.0): cudaErrorMemoryAllocation: out of memory".
// device < 0 means "no particular device" (cudaGetDeviceCount). Host only, so it is tested.
std::string gpu_call_message(const std::string& call, int device, const std::string& bus_id,
                             const std::string& error_name, const std::string& error_text);

// Throw CudaError when status is not success. `status` is the cudaError_t / cublasStatus_t
// value as an int, so this header needs no CUDA header and host files may include it.
// Defined in cuda_check_gpu.cu (built only with CUDA).
void check_cuda_status(int status, const char* call, int device);
void check_cublas_status(int status, const char* call, int device);

// The PCI bus id of a CUDA device as sysfs spells it ("0000:17:00.0"), or "" when CUDA cannot
// say. Used in error messages and result labels, so CUDA and NVML results join by bus id.
std::string cuda_bus_id(int device);

}  // namespace pipecheck

// The call's own text goes into the message, as nvbench's NVBENCH_CUDA_CALL does.
#define PIPECHECK_CUDA(call, device) \
  ::pipecheck::check_cuda_status(static_cast<int>(call), #call, (device))
#define PIPECHECK_CUBLAS(call, device) \
  ::pipecheck::check_cublas_status(static_cast<int>(call), #call, (device))
