// Drives the collectives of one process: every GPU of a single-process job, or this rank's GPU
// under MPI. comm_runner_nccl.cpp does it with NCCL and CUDA; comm_runner_nonccl.cpp, in builds
// without NCCL, only says why it cannot. Every NCCL or CUDA failure is thrown as an
// NcclError/CudaError naming the call, the GPU and the library's own message.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/comm_cases.hpp"
#include "comm/rank_group.hpp"

namespace pipecheck {

// "" when this build has NCCL; else why it has not, and how to get it.
std::string comm_not_built_reason();

struct LocalGpu {
  int device = -1;  // CUDA ordinal
  int rank = 0;     // NCCL rank
};

class CommRunner {
 public:
  // Creates the communicators (ncclCommInitAll for a single process; ncclCommInitRank with the
  // unique id rank 0 broadcasts under MPI), a stream and two events per GPU, and send and
  // receive buffers of `buffer_bytes` (ncclMemAlloc, as nccl-tests allocates them). A wait that
  // sees no finish for `timeout_seconds` (0: never) aborts the communicators and throws.
  CommRunner(const std::vector<LocalGpu>& gpus, int ranks, std::uint64_t buffer_bytes, int timeout_seconds,
             RankGroup& group);
  ~CommRunner();
  CommRunner(const CommRunner&) = delete;
  CommRunner& operator=(const CommRunner&) = delete;

  // `iterations` untimed operations of the case, waited for.
  void warm_up(const CommCase& c, int iterations);
  // One sample: an untimed operation that lines every GPU up, then `iters` operations between
  // CUDA events on each GPU's stream (buffers shifted per iteration as nccl-tests does).
  // Seconds per operation, of the slowest GPU of this process.
  double time_iterations(const CommCase& c, int iters);
  // The data check: fresh inputs, receive buffers poisoned with NaN, one operation, then the
  // wrong elements of this process's GPUs counted on the GPUs, and the first of them named
  // ("rank 1 element 17 holds nan, expected 5"; "" when none is wrong).
  struct LocalCheck {
    std::uint64_t wrong = 0;
    std::string first;
  };
  LocalCheck check(const CommCase& c);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace pipecheck
