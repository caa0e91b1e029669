// The NCCL error message: the call, the GPU, NCCL's result name and string, its last-error detail.
#include "comm/nccl_check.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(CommNcclCheck, ResultNames) {
  EXPECT_EQ(nccl_result_name(0), "ncclSuccess");
  EXPECT_EQ(nccl_result_name(1), "ncclUnhandledCudaError");
  EXPECT_EQ(nccl_result_name(6), "ncclRemoteError");
  EXPECT_EQ(nccl_result_name(42), "ncclResult 42");
  EXPECT_EQ(nccl_result_name(-1), "ncclResult -1");
}

TEST(CommNcclCheck, MessageNamesCallGpuAndNcclText) {
  EXPECT_EQ(nccl_call_message("ncclCommInitRank(&comm, 8, id, 3)", 3, "0000:1a:00.0", 6, "remote process exited or there was a network error",
                              "NET/IB : Got completion with error 12"),
            "ncclCommInitRank(&comm, 8, id, 3) on GPU 3 (0000:1a:00.0): ncclRemoteError: remote process exited or "
            "there was a network error: NET/IB : Got completion with error 12");
  // No GPU (ncclCommInitAll over several), no detail, detail equal to the string: left out.
  EXPECT_EQ(nccl_call_message("ncclGetUniqueId(&id)", -1, "", 2, "unhandled system error", ""),
            "ncclGetUniqueId(&id): ncclSystemError: unhandled system error");
  EXPECT_EQ(nccl_call_message("ncclGroupEnd()", 0, "", 3, "internal error", "internal error"),
            "ncclGroupEnd() on GPU 0: ncclInternalError: internal error");
  const NcclError error("x");
  const RunError& as_run_error = error;  // cases and the probe main report it as a run error
  EXPECT_STREQ(as_run_error.what(), "x");
}

}  // namespace
}  // namespace pipecheck
