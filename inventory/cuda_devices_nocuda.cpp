// Without a CUDA toolkit: the GPU inventory says why CUDA facts are missing (the seam of
// cuda_devices.cu).
#include "inventory/cuda_devices.hpp"

namespace pipecheck {

CudaReport query_cuda_devices() {
  CudaReport report;
  report.cuda_built = false;
  report.error = "not built: no CUDA toolkit";
  return report;
}

}  // namespace pipecheck
