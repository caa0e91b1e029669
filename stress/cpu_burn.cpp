// CPU burn threads: seeds and their references, chunks checked bit for bit, faults injected on
// request (see cpu_burn.hpp).
#include "stress/cpu_burn.hpp"

#include <sched.h>

#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <thread>

#include "core/cpu_allowance.hpp"
#include "stress/burn_verify.hpp"
#include "stress/cpu_burn_isa.hpp"
#include "stress/fault_injection.hpp"

namespace pipecheck {

namespace {

constexpr int max_wrong_notes = 5;  // the first few wrong chunks are described in the summary

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A uniform value in [0, 1) from a key.
double uniform(std::uint64_t key) { return static_cast<double>(splitmix64(key) >> 11) * 0x1p-53; }

std::string describe(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  char text[96];
  std::snprintf(text, sizeof text, "%.17g (0x%016" PRIx64 ")", value, bits);
  return text;
}

std::string describe(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  char text[96];
  std::snprintf(text, sizeof text, "%.9g (0x%08" PRIx32 ")", static_cast<double>(value), bits);
  return text;
}

template <typename T>
struct Seed {
  std::vector<T> x0, a, b, expected;
};

template <typename T>
class TypedBurnThread final : public CpuBurnThread {
 public:
  using Run = void (*)(T*, const T*, const T*, std::uint64_t);

  TypedBurnThread(const CpuBurnKernel& kernel, CpuPrecision precision, unsigned thread, std::uint64_t nonce,
                  CpuBurnShape shape, Run run, Run reference)
      : kernel_(kernel), width_(kernel.width(precision)), lanes_(kernel.lanes(precision)), thread_(thread),
        shape_(shape), run_(run), reference_(reference), state_(static_cast<std::size_t>(lanes_)) {
    for (int s = 0; s < shape_.seeds; ++s) seeds_.push_back(make_seed(thread, s, nonce));
  }

  std::uint64_t prepare(std::vector<std::string>* problems) override {
    std::uint64_t bad = 0;
    const long double unit_roundoff = std::numeric_limits<T>::epsilon() / 2;
    for (std::size_t s = 0; s < seeds_.size(); ++s) {
      Seed<T>& seed = seeds_[s];
      seed.expected = seed.x0;
      reference_(seed.expected.data(), seed.a.data(), seed.b.data(), shape_.iterations);
      for (int lane = 0; lane < lanes_; ++lane) {
        const T a = seed.a[lane % width_], b = seed.b[lane % width_], x0 = seed.x0[lane];
        const long double exact = recurrence_closed_form(x0, a, b, shape_.iterations);
        const long double bound = recurrence_error_bound(x0, a, b, shape_.iterations, unit_roundoff, kernel_.fused);
        const long double got = seed.expected[lane];
        if (std::fabs(got - exact) <= bound) continue;  // false for NaN too
        ++bad;
        if (problems && bad <= max_wrong_notes) {
          char text[160];
          std::snprintf(text, sizeof text, "closed form %.17Lg, allowed difference %.3Lg", exact, bound);
          problems->push_back("cpu thread " + std::to_string(thread_) + " seed " + std::to_string(s) +
                              ": the reference misses the closed form at lane " + std::to_string(lane) + ": " +
                              describe(seed.expected[lane]) + ", " + text);
        }
      }
    }
    return bad;
  }

  CpuChunkCheck run_chunk(std::uint64_t chunk, int fault_lane) override {
    const Seed<T>& seed = seeds_[chunk % seeds_.size()];
    std::memcpy(state_.data(), seed.x0.data(), state_.size() * sizeof(T));
    run_(state_.data(), seed.a.data(), seed.b.data(), shape_.iterations);
    if (fault_lane >= 0 && fault_lane < lanes_) corrupt_element(state_[static_cast<std::size_t>(fault_lane)]);
    CpuChunkCheck check;
    std::size_t first = 0;
    check.wrong = count_differing(std::span<const T>(state_), std::span<const T>(seed.expected), &first);
    if (check.wrong) {
      check.first_wrong = "cpu thread " + std::to_string(thread_) + " chunk " + std::to_string(chunk) + " (seed " +
                          std::to_string(chunk % seeds_.size()) + "): " + std::to_string(check.wrong) + " of " +
                          std::to_string(lanes_) + " lanes wrong, first lane " + std::to_string(first) + ": " +
                          describe(state_[first]) + ", expected " + describe(seed.expected[first]);
    }
    return check;
  }

  int lanes() const override { return lanes_; }
  double chunk_flops() const override { return 2.0 * lanes_ * static_cast<double>(shape_.iterations); }

 private:
  // Inputs of one seed from (thread, seed, nonce): a = 1 - d with n x d in [0.5, 1], so every
  // lane travels a good part of the way from x0 in [0.25, 2.25) to its fixed point in
  // [0.5, 1.5) during a chunk and ends far from both (no lane settles where the arithmetic
  // stops changing it).
  Seed<T> make_seed(unsigned thread, int s, std::uint64_t nonce) const {
    Seed<T> seed;
    const std::uint64_t key = splitmix64(nonce ^ (std::uint64_t(thread) << 32) ^ std::uint64_t(s) << 8);
    const double n = static_cast<double>(shape_.iterations);
    for (int i = 0; i < width_; ++i) {
      const double d = (0.5 + 0.5 * uniform(key + 2 * i)) / n;
      const double fixed_point = 0.5 + uniform(key + 2 * i + 1);
      seed.a.push_back(static_cast<T>(1.0 - d));
      seed.b.push_back(static_cast<T>(d * fixed_point));
    }
    for (int lane = 0; lane < lanes_; ++lane) {
      seed.x0.push_back(static_cast<T>(0.25 + 2.0 * uniform(key + 0x10000 + lane)));
    }
    return seed;
  }

  const CpuBurnKernel& kernel_;
  int width_;
  int lanes_;
  unsigned thread_;
  CpuBurnShape shape_;
  Run run_;
  Run reference_;
  std::vector<Seed<T>> seeds_;
  std::vector<T> state_;
};

class CpuBurnWorker final : public BurnWorker {
 public:
  explicit CpuBurnWorker(const CpuBurnConfig& config)
      : config_(config), kernel_(cpu_burn_kernel(config)), threads_(cpu_burn_threads(config)),
        faults_(config.inject_faults) {}

  void run(WorkerContext& ctx) override {
    ctx.note("CPU burn: " + std::to_string(threads_) + " threads of " + kernel_.display + " " +
             to_string(config_.precision) + " multiply-add chains (" + std::to_string(kernel_.accumulators) +
             " vectors of " + std::to_string(kernel_.vector_bits) + " bits a step), each chunk checked bit for bit "
             "against a reference computed once per seed and checked against the closed form");
    const std::uint64_t nonce = splitmix64(static_cast<std::uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count()));
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < threads_; ++i) pool.emplace_back([this, &ctx, i, nonce] { burn(ctx, i, nonce); });
    for (auto& thread : pool) thread.join();
    if (faults_.planned()) {
      ctx.note("CPU burn: " + std::to_string(faults_.injected()) + " of " + std::to_string(faults_.planned()) +
               " requested faults injected between compute and check (--inject-faults)");
    }
  }

 private:
  void burn(WorkerContext& ctx, unsigned index, std::uint64_t nonce) {
    const auto thread = make_cpu_burn_thread(kernel_, config_.precision, index, nonce, config_.shape);
    std::vector<std::string> problems;
    const std::uint64_t bad_references = thread->prepare(&problems);
    if (bad_references) ctx.counters().wrong_results += bad_references;
    for (auto& problem : problems) note_wrong(ctx, std::move(problem));
    const double flops = thread->chunk_flops();
    for (std::uint64_t chunk = 0; !ctx.stop_requested(); ++chunk) {
      if (!ctx.active()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        continue;
      }
      int fault_lane = -1;
      std::uint64_t number = 0;
      if (faults_.take(&number)) {
        fault_lane = static_cast<int>(fault_index(number, faults_.planned(), std::uint64_t(thread->lanes())));
        ctx.counters().injected_faults += 1;
      }
      const CpuChunkCheck check = thread->run_chunk(chunk, fault_lane);
      if (check.wrong) {
        ctx.counters().wrong_results += check.wrong;
        note_wrong(ctx, check.first_wrong);
      }
      ctx.counters().add_work(flops);
      ctx.counters().iterations += 1;
    }
  }

  void note_wrong(WorkerContext& ctx, std::string text) {
    if (wrong_notes_.fetch_add(1) < max_wrong_notes) ctx.note(std::move(text));
  }

  CpuBurnConfig config_;
  const CpuBurnKernel& kernel_;
  unsigned threads_;
  FaultInjector faults_;
  std::atomic<int> wrong_notes_{0};
};

}  // namespace

std::unique_ptr<CpuBurnThread> make_cpu_burn_thread(const CpuBurnKernel& kernel, CpuPrecision precision,
                                                     unsigned thread, std::uint64_t nonce, CpuBurnShape shape) {
  if (precision == CpuPrecision::fp64) {
    return std::make_unique<TypedBurnThread<double>>(kernel, precision, thread, nonce, shape, kernel.run_fp64,
                                                     kernel.reference_fp64);
  }
  return std::make_unique<TypedBurnThread<float>>(kernel, precision, thread, nonce, shape, kernel.run_fp32,
                                                  kernel.reference_fp32);
}

std::vector<int> cpu_burn_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) {
    const unsigned hardware = std::thread::hardware_concurrency();
    for (unsigned cpu = 0; cpu < std::max(hardware, 1u); ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

unsigned cpu_burn_threads(const CpuBurnConfig& config) {
  if (config.threads > 0) return config.threads;
  // The affinity mask capped by the cgroup's CPU quota: a container allowed 8 of 128 cores
  // burns with 8 threads.
  return static_cast<unsigned>(usable_cpu_count());
}

const CpuBurnKernel& cpu_burn_kernel(const CpuBurnConfig& config) {
  return config.kernel ? *config.kernel : widest_cpu_burn_kernel();
}

std::unique_ptr<BurnWorker> make_cpu_burn_worker(const CpuBurnConfig& config) {
  return std::make_unique<CpuBurnWorker>(config);
}

}  // namespace pipecheck
