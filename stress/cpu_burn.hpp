// The CPU burn: every CPU the process may run on gets a thread of vectorized multiply-adds
// (the widest variant the CPU runs, cpu_burn_isa.hpp), so the whole node draws its full power
// beside the GPUs; on a machine without a GPU it is the workload. Each chunk starts from inputs
// that depend on the thread and the chunk, and its result is compared bit for bit with a
// reference computed once per seed by scalar code, itself checked against the recurrence's
// closed form. FLOPs are counted from the iterations actually run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stress/burn_worker.hpp"
#include "stress/cpu_burn_kernel.hpp"

namespace pipecheck {

struct CpuBurnShape {
  int seeds = 8;                      // distinct inputs a thread cycles through, each with its reference
  std::uint64_t iterations = 1 << 16;  // steps of a chunk: well under a millisecond with AVX-512
};

struct CpuBurnConfig {
  unsigned threads = 0;                     // 0: one per usable CPU (affinity and cgroup quota)
  const CpuBurnKernel* kernel = nullptr;    // nullptr: the widest this CPU runs
  CpuPrecision precision = CpuPrecision::fp64;
  std::uint64_t inject_faults = 0;          // results to corrupt between compute and check
  CpuBurnShape shape;
};

// What checking one chunk found.
struct CpuChunkCheck {
  std::uint64_t wrong = 0;  // lanes that differ from the reference (bit for bit)
  std::string first_wrong;  // "lane 7: 1.2345678901234567 (0x3ff3c0ca428c59fb), expected ..."
};

// One burn thread's work: its seeds and their references, then one chunk at a time.
class CpuBurnThread {
 public:
  virtual ~CpuBurnThread() = default;
  // Computes each seed's reference and checks it against the closed form; returns the lanes
  // that miss it (each described in *problems). Call once before run_chunk.
  virtual std::uint64_t prepare(std::vector<std::string>* problems) = 0;
  // Runs chunk number `chunk` (seed chunk % seeds) and checks it. fault_lane >= 0 corrupts that
  // lane between compute and check (--inject-faults).
  virtual CpuChunkCheck run_chunk(std::uint64_t chunk, int fault_lane = -1) = 0;
  virtual int lanes() const = 0;
  // Floating-point operations one chunk executes: 2 a multiply-add, every lane, every step.
  virtual double chunk_flops() const = 0;
};

std::unique_ptr<CpuBurnThread> make_cpu_burn_thread(const CpuBurnKernel& kernel, CpuPrecision precision,
                                                     unsigned thread, std::uint64_t nonce,
                                                     CpuBurnShape shape = {});

// The CPUs this process may run on (sched_getaffinity: taskset, cgroup cpusets, Slurm).
std::vector<int> cpu_burn_cpus();
unsigned cpu_burn_threads(const CpuBurnConfig& config);
const CpuBurnKernel& cpu_burn_kernel(const CpuBurnConfig& config);

std::unique_ptr<BurnWorker> make_cpu_burn_worker(const CpuBurnConfig& config);

}  // namespace pipecheck
