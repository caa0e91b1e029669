// The CPU burn: every core runs dense floating-point multiply-adds, so the whole node draws its
// full power beside the GPUs; on a machine without a GPU it is the workload. Each chunk's result
// is compared with the thread's first one (bit for bit: same inputs, same instructions).
#pragma once

#include <cstdint>
#include <memory>

#include "stress/burn_worker.hpp"

namespace pipecheck {

struct CpuBurnConfig {
  unsigned threads = 0;  // 0: one per hardware thread
};

// One chunk of the burn from fixed inputs: the same value every time on a healthy CPU.
double cpu_burn_chunk(std::uint64_t iterations);
// Floating-point operations of one chunk.
double cpu_burn_chunk_flops(std::uint64_t iterations);

std::unique_ptr<BurnWorker> make_cpu_burn_worker(const CpuBurnConfig& config);
unsigned cpu_burn_threads(const CpuBurnConfig& config);

}  // namespace pipecheck
