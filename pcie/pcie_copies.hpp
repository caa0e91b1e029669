// Host<->device copies of one GPU, as nvbandwidth measures them: a spin kernel holds the stream
// while the copies are queued so they start together; copy engines (cudaMemcpyAsync) for pinned
// and pageable memory, an SM copy kernel for mapped pinned memory; a checksum of what arrived.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pcie/pcie_plan.hpp"

namespace pipecheck {

// Buffers of one GPU on one NUMA node: two host buffers (source of h2d, target of d2h) and two
// device buffers, each `capacity` bytes. Pinned buffers (cudaHostAlloc, portable and mapped)
// serve the pinned and mapped cases; pageable ones come from malloc. Host pages are placed by
// the caller's NumaBinding (set_mempolicy + first touch). Throws CudaError/RunError.
class PcieCopier {
 public:
  PcieCopier(const GpuTarget& gpu, std::uint64_t capacity, bool pageable);
  ~PcieCopier();
  PcieCopier(const PcieCopier&) = delete;
  PcieCopier& operator=(const PcieCopier&) = delete;

  int device() const { return device_; }
  bool pageable() const { return pageable_; }
  std::uint64_t capacity() const { return capacity_; }

  // Clears the targets of the kind's copies, so the check after the runs sees only new bytes.
  void clear_targets(const CopyKind& kind, std::uint64_t bytes);
  // Queues `copies` copies of `bytes` between events. With `hold`, a spin kernel first holds the
  // stream until release_hold(): the caller queues every GPU, then releases them together.
  // Pageable copies block the host thread, so they are never held.
  void enqueue(const CopyKind& kind, std::uint64_t bytes, int copies, bool hold);
  // Milliseconds between the events of the last enqueue (waits for it).
  float elapsed_ms();
  // Whether the spin kernel gave up waiting (the copies then started before all were queued).
  bool hold_timed_out();
  // "" when the targets hold the sources' bytes (checksums match), else which differ.
  std::string verify(const CopyKind& kind, std::uint64_t bytes);

  // The flag every spin kernel waits on, in pinned memory all GPUs see.
  static void release_hold();

  // enqueue(hold) + release_hold() + elapsed_ms(): one timed iteration on this GPU alone.
  float time_ms(const CopyKind& kind, std::uint64_t bytes, int copies);

 private:
  void release();  // frees what was allocated; never throws
  PatternDifference device_target_differences(std::uint64_t words);

  int device_;
  std::uint64_t capacity_;
  bool pageable_;
  int sm_count_;
  unsigned char* host_source_ = nullptr;  // h2d source, pattern seed kHostSeed
  unsigned char* host_target_ = nullptr;  // d2h target
  unsigned char* device_source_ = nullptr;  // d2h source, pattern seed kDeviceSeed
  unsigned char* device_target_ = nullptr;  // h2d target
  unsigned long long* device_sum_ = nullptr;
  void* streams_[2] = {nullptr, nullptr};   // cudaStream_t: h2d on 0, d2h on 1 for bidir
  void* start_ = nullptr;
  void* stop_ = nullptr;
  void* joined_ = nullptr;                  // stream 1 done, stream 0 waits for it
  int copy_blocks_ = 1;
};

}  // namespace pipecheck
