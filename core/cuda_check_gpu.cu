// CUDA-typed halves of the error helpers in cuda_check.hpp: error names and strings from the
// CUDA runtime and cuBLAS themselves.
#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include <array>

#include "core/cuda_check.hpp"
#include "inventory/gpu_inventory.hpp"

namespace pipecheck {

std::string cuda_bus_id(int device) {
  std::array<char, 32> text{};
  if (device < 0 || cudaDeviceGetPCIBusId(text.data(), static_cast<int>(text.size()), device) !=
                        cudaSuccess) {
    cudaGetLastError();  // do not leave this failure for the next caller to find
    return "";
  }
  return normalize_bdf(text.data()).value_or(text.data());
}

void check_cuda_status(int status, const char* call, int device) {
  if (status == cudaSuccess) return;
  const auto error = static_cast<cudaError_t>(status);
  // A sticky error (illegal address, launch failure) is also returned by later calls; clear
  // the non-sticky slot so the next check reports its own call.
  cudaGetLastError();
  throw CudaError(gpu_call_message(call, device, cuda_bus_id(device), cudaGetErrorName(error),
                                   cudaGetErrorString(error)));
}

void check_cublas_status(int status, const char* call, int device) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const auto error = static_cast<cublasStatus_t>(status);
  throw CudaError(gpu_call_message(call, device, cuda_bus_id(device), cublasGetStatusName(error),
                                   cublasGetStatusString(error)));
}

}  // namespace pipecheck
