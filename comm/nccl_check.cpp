// NCCL error messages (host only, so tested without NCCL or a GPU).
#include "comm/nccl_check.hpp"

#include "core/cuda_check.hpp"

namespace pipecheck {

std::string nccl_result_name(int result) {
  // ncclResult_t in nccl.h, stable since NCCL 2.
  static const char* const names[] = {"ncclSuccess",        "ncclUnhandledCudaError", "ncclSystemError",
                                      "ncclInternalError",  "ncclInvalidArgument",    "ncclInvalidUsage",
                                      "ncclRemoteError",    "ncclInProgress"};
  if (result >= 0 && result < static_cast<int>(sizeof names / sizeof names[0])) return names[result];
  return "ncclResult " + std::to_string(result);
}

std::string nccl_call_message(const std::string& call, int device, const std::string& bus_id, int result,
                              const std::string& error_text, const std::string& detail) {
  std::string text = gpu_call_message(call, device, bus_id, nccl_result_name(result), error_text);
  if (!detail.empty() && detail != error_text) text += ": " + detail;
  return text;
}

}  // namespace pipecheck
