// HBM stream kernels and their host-side driver: read (reduce), write (fill), copy, triad with
// 16-byte vector accesses on a persistent grid, and cudaMemcpy device-to-device.
#pragma once

#include <cstdint>
#include <string>

#include "memory/hbm_model.hpp"
#include "pcie/pcie_plan.hpp"

namespace pipecheck {

// Three arrays of one GPU, their stream and timing events. Construction allocates and fills
// (outside any timed region); every method checks its CUDA calls and throws CudaError.
class HbmArrays {
 public:
  HbmArrays(const GpuTarget& gpu, std::uint64_t array_bytes);
  ~HbmArrays();
  HbmArrays(const HbmArrays&) = delete;
  HbmArrays& operator=(const HbmArrays&) = delete;

  // a, b, c back to their initial contents (before each case: triad rewrites a).
  void reset();
  // Enqueues one pass of the op; `pass` numbers write's fill value.
  void enqueue(HbmOp op, std::uint64_t pass);
  // Milliseconds of `passes` passes of the op between two events on the arrays' stream.
  float time_ms(HbmOp op, int passes, std::uint64_t first_pass);
  // Whether the arrays hold what `op` must have left after its last pass ("" when they do).
  std::string verify(HbmOp op, std::uint64_t last_pass);

  std::uint64_t elements() const { return elements_; }
  std::uint64_t array_bytes() const { return elements_ * kHbmElementBytes; }
  int grid_blocks(HbmOp op) const;
  int threads_per_block() const { return kThreads; }

 private:
  static constexpr int kThreads = 256;
  void release();  // frees what was allocated; never throws
  // The device check of one array (mismatch_kernel), its first wrong element fetched to name it.
  HbmCheck check_array(const double* array, HbmExpect expect, double fill);

  int device_;
  std::uint64_t elements_;
  int sm_count_;
  double* a_ = nullptr;
  double* b_ = nullptr;
  double* c_ = nullptr;
  double* partials_ = nullptr;            // one read sum per block
  unsigned long long* mismatches_ = nullptr;  // [0] wrong elements, [1] the lowest wrong index
  void* stream_ = nullptr;                // cudaStream_t, kept opaque for host includes
  void* start_ = nullptr;
  void* stop_ = nullptr;
  int blocks_read_ = 1, blocks_write_ = 1, blocks_copy_ = 1, blocks_triad_ = 1;
};

}  // namespace pipecheck
