// CPU burn threads: chunks of multiply-adds, verified against each thread's first result.
#include "stress/cpu_burn.hpp"

#include <thread>
#include <vector>

#include "core/cpu_allowance.hpp"

namespace pipecheck {

namespace {

constexpr int lanes = 64;  // wide enough for the compiler to fill the vector units
constexpr std::uint64_t chunk_iterations = 20000;  // about a millisecond: stop is noticed fast

class CpuBurnWorker final : public BurnWorker {
 public:
  explicit CpuBurnWorker(unsigned threads) : threads_(threads) {}

  void run(WorkerContext& ctx) override {
    ctx.note("CPU burn: " + std::to_string(threads_) + " threads of FP64 multiply-add");
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < threads_; ++i) pool.emplace_back([&ctx] { burn(ctx); });
    for (auto& thread : pool) thread.join();
  }

 private:
  static void burn(WorkerContext& ctx) {
    const double expected = cpu_burn_chunk(chunk_iterations);
    const double flops = cpu_burn_chunk_flops(chunk_iterations);
    while (!ctx.stop_requested()) {
      if (!ctx.active()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        continue;
      }
      if (cpu_burn_chunk(chunk_iterations) != expected) ctx.counters().wrong_results += 1;
      ctx.counters().flops += flops;
      ctx.counters().iterations += 1;
    }
  }

  unsigned threads_;
};

}  // namespace

double cpu_burn_chunk(std::uint64_t iterations) {
  double x[lanes];
  for (int i = 0; i < lanes; ++i) x[i] = 1.0 + i * 1e-3;
  // Contracting towards 1/(1-a): the values stay finite however long the chunk.
  const double a = 0.999999, b = 1e-6;
  for (std::uint64_t k = 0; k < iterations; ++k) {
    for (int i = 0; i < lanes; ++i) x[i] = x[i] * a + b;
  }
  double sum = 0;
  for (int i = 0; i < lanes; ++i) sum += x[i];
  return sum;
}

double cpu_burn_chunk_flops(std::uint64_t iterations) {
  return 2.0 * lanes * static_cast<double>(iterations);
}

unsigned cpu_burn_threads(const CpuBurnConfig& config) {
  if (config.threads > 0) return config.threads;
  // The CPUs this process may use (affinity and cgroup quota), not the machine's count.
  return static_cast<unsigned>(usable_cpu_count());
}

std::unique_ptr<BurnWorker> make_cpu_burn_worker(const CpuBurnConfig& config) {
  return std::make_unique<CpuBurnWorker>(cpu_burn_threads(config));
}

}  // namespace pipecheck

