// What a burn worker (GPU GEMM burn, CPU burn, a test's fake) shares with the stress run:
// counters the sampler reads, the stop flag, the load profile and its watchdog entry.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "stress/load_profile.hpp"
#include "stress/watchdog.hpp"

namespace pipecheck {

// Written by the worker, read by the sampler at any time.
struct WorkerCounters {
  std::atomic<double> flops{0};                  // completed and verified work (add_work)
  std::atomic<std::int64_t> completed_ns{0};     // steady_clock time of the last add_work; 0: none
  std::atomic<std::uint64_t> wrong_results{0};   // result elements that differ from the reference
  std::atomic<std::uint64_t> memory_errors{0};   // memory-test words read back wrong
  std::atomic<std::uint64_t> iterations{0};      // completed batches
  std::atomic<std::uint64_t> injected_faults{0};         // results corrupted on purpose (--inject-faults)
  std::atomic<std::uint64_t> injected_memory_faults{0};  // memory-test words corrupted on purpose
  std::atomic<bool> finished{false};             // run() returned (or threw)

  // A batch of work completed now. The sampler takes rates between completions, not between
  // its own ticks, so a batch longer than the interval is not counted in the wrong interval.
  void add_work(double work_flops) {
    flops += work_flops;
    completed_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count(),
                       std::memory_order_release);
  }
};

class WorkerContext {
 public:
  using Clock = std::chrono::steady_clock;

  WorkerContext(const std::atomic<bool>& stop, LoadProfile profile, Clock::time_point start,
                WorkerCounters& counters, Watchdog& watchdog, int watch_id,
                std::chrono::milliseconds deadline)
      : stop_(stop), profile_(profile), start_(start), counters_(counters), watchdog_(watchdog),
        watch_id_(watch_id), deadline_(deadline) {}

  bool stop_requested() const { return stop_.load(std::memory_order_relaxed); }
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  bool active() const { return profile_.active_at(elapsed_s()); }
  WorkerCounters& counters() { return counters_; }

  // Around every wait on the device: a wait that outlives the deadline is a hang.
  void arm(std::string what) { watchdog_.arm(watch_id_, std::move(what), deadline_); }
  void disarm() { watchdog_.disarm(watch_id_); }
  bool hung() const { return watchdog_.hung(watch_id_); }
  std::chrono::milliseconds deadline() const { return deadline_; }

  // Facts the worker wants in the summary (matrix size, memory tested, reference check).
  void note(std::string text) {
    const std::lock_guard lock(mutex_);
    notes_.push_back(std::move(text));
  }
  std::vector<std::string> notes() const {
    const std::lock_guard lock(mutex_);
    return notes_;
  }

 private:
  const std::atomic<bool>& stop_;
  LoadProfile profile_;
  Clock::time_point start_;
  WorkerCounters& counters_;
  Watchdog& watchdog_;
  int watch_id_;
  std::chrono::milliseconds deadline_;
  mutable std::mutex mutex_;
  std::vector<std::string> notes_;
};

// Runs until ctx.stop_requested(), a hang (ctx.hung()) or a fault. Throws on a fault (a CUDA
// error, an allocation failure): the run records the message and the other workers go on.
class BurnWorker {
 public:
  virtual ~BurnWorker() = default;
  virtual void run(WorkerContext& ctx) = 0;
};

}  // namespace pipecheck
