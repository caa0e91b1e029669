// The table of probes, in the order data flows through a training pipeline.
#include "app/probe_catalog.hpp"

namespace pipecheck {

const std::vector<ProbeEntry>& probe_catalog() {
  static const std::vector<ProbeEntry> catalog = {
      {"storage", "pipecheck-storage", false,
       "storage reads through io_uring: sequential 1 MiB, random 4 KiB IOPS with latency, "
       "dataset files, cold page cache, and a one-thread pread baseline"},
      {"decode", "pipecheck-decode", false,
       "CPU JPEG decode (TurboJPEG): full, DCT-scaled 1/2 1/4, decode+resize to the training size; "
       "1 thread to all cores; nvJPEG when present"},
      {"hostmem", "pipecheck-hostmem", false,
       "host memory bandwidth: memcpy, read, write; 1 thread and all cores"},
      {"pcie", "pipecheck-pcie", true,
       "host<->device copies: h2d/d2h/bidir, pinned/pageable/mapped, copy engine and SM kernel, "
       "4 KiB-1 GiB, NUMA local/remote, all GPUs at once"},
      {"memory", "pipecheck-memory", true,
       "HBM bandwidth: read/write/copy/triad kernels and cudaMemcpy D2D, arrays >= 4x L2 and >= 1 GiB"},
      {"compute", "pipecheck-compute", true,
       "GEMM through cuBLASLt per dtype (fp64..int8), best heuristic algorithm over a shape sweep, "
       "sample-verified"},
      // Built in every build: without NCCL (or CUDA) it says "skipped: built without NCCL".
      {"comm", "pipecheck-comm", false,
       "NCCL bus bandwidth: all-reduce, all-gather, reduce-scatter, broadcast in float and bf16, "
       "8 B to 1 GiB, data-checked; one process for all local GPUs, or one rank a GPU under mpirun/srun"},
  };
  return catalog;
}

std::string known_stages() {
  std::string names;
  for (const auto& entry : probe_catalog()) names += (names.empty() ? "" : ", ") + entry.stage;
  return names;
}

}  // namespace pipecheck
