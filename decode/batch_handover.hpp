// The hand-over of a batch from a loader worker process to the training process, as PyTorch's
// DataLoader does it on Linux: the worker collates the batch into a new shared-memory segment
// (torch.stack into storage._new_shared), passes its file descriptor over a Unix socket
// (the file_descriptor sharing strategy), and the training process maps it. The worker runs at
// most `prefetch` batches ahead (prefetch_factor). Measured for real: a child process, its own
// CPU time and the parent's.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace pipecheck {

struct HandoverOptions {
  std::size_t sample_bytes = 0;  // one sample's tensor (3 x 224 x 224 float32: 602112)
  int batch = 32;
  int prefetch = 2;              // DataLoader's default prefetch_factor
  long corrupt_batch = -1;       // tests: the child changes one byte of this batch after stamping
};

class BatchHandover {
 public:
  // Forks the worker; throws RunError naming the call that failed.
  explicit BatchHandover(const HandoverOptions& options);
  ~BatchHandover();
  BatchHandover(const BatchHandover&) = delete;
  BatchHandover& operator=(const BatchHandover&) = delete;

  // Receives the next batch, maps it and checks every sample's stamps (its batch and index, at
  // its first and last bytes): "" when the batch is the one expected, else what is wrong.
  // Throws RunError when the worker is gone.
  std::string receive();

  // Stops the worker; its CPU seconds over all batches it made, and how many it made.
  struct WorkerTotals {
    double cpu_seconds = 0;
    long batches = 0;
  };
  WorkerTotals stop();

 private:
  HandoverOptions options_;
  pid_t child_ = -1;
  int socket_ = -1;
  long received_ = 0;
};

}  // namespace pipecheck
