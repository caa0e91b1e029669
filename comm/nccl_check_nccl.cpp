// The NCCL-typed half of the error helper: NCCL's own strings.
#include <nccl.h>

#include "comm/nccl_check.hpp"
#include "core/cuda_check.hpp"

namespace pipecheck {

void check_nccl_status(int status, const char* call, int device, void* comm) {
  if (status == ncclSuccess) return;
  const auto result = static_cast<ncclResult_t>(status);
  const char* detail = ncclGetLastError(static_cast<ncclComm_t>(comm));
  throw NcclError(nccl_call_message(call, device, device >= 0 ? cuda_bus_id(device) : "", status,
                                    ncclGetErrorString(result), detail != nullptr ? detail : ""));
}

}  // namespace pipecheck
