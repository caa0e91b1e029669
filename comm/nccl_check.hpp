// The NCCL error helper (STYLE 5): a failed NCCL call becomes an NcclError naming the call, the
// GPU (CUDA ordinal and bus id), NCCL's result name and string, and ncclGetLastError's detail.
#pragma once

#include <string>

#include "core/errors.hpp"

namespace pipecheck {

// A RunError, so a case reports it and the probe main says "could not run" outside a case.
class NcclError : public RunError {
 public:
  using RunError::RunError;
};

// "ncclUnhandledCudaError" for 1, ...; "ncclResult 42" for a code this table does not know.
std::string nccl_result_name(int result);

// "ncclCommInitAll(...) on GPU 1 (0000:18:00.0): ncclUnhandledCudaError: unhandled cuda error
// (run with NCCL_DEBUG=INFO for details): Cuda failure 'out of memory'". device < 0: no GPU.
// `detail` (ncclGetLastError) is left out when empty or the same as `error_text`.
std::string nccl_call_message(const std::string& call, int device, const std::string& bus_id, int result,
                              const std::string& error_text, const std::string& detail);

// Throws NcclError when `status` (an ncclResult_t as int) is not ncclSuccess. `comm` is the
// ncclComm_t the call used (for ncclGetLastError), or null. Defined in nccl_check_nccl.cpp.
void check_nccl_status(int status, const char* call, int device, void* comm);

}  // namespace pipecheck

#define PIPECHECK_NCCL(call, device, comm) \
  ::pipecheck::check_nccl_status(static_cast<int>(call), #call, (device), (comm))
