// The stress watchdog: each worker arms a deadline before it waits on the GPU (a batch of
// kernels, a copy) and disarms it after. A deadline that passes is a hang: the watchdog thread
// reports it once, the worker is abandoned, and the run goes on and still ends.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pipecheck {

struct HangReport {
  int id = -1;
  std::string name;  // the worker ("gpu0")
  std::string what;  // what it was waiting for ("GEMM batch 812")
  double deadline_s = 0;
};

class Watchdog {
 public:
  using Clock = std::chrono::steady_clock;
  // Called on the watchdog thread, once per hang, with the watchdog's lock not held.
  using HangHandler = std::function<void(const HangReport&)>;

  explicit Watchdog(HangHandler on_hang,
                    std::chrono::milliseconds poll = std::chrono::milliseconds(50));
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // A watched worker; returns its id.
  int add(std::string name);
  // From the worker: "I am about to wait for `what`; it must be done within `deadline`".
  void arm(int id, std::string what, std::chrono::milliseconds deadline);
  void disarm(int id);
  // True once the worker's deadline passed (it stays true): the worker gives up its wait.
  bool hung(int id) const;
  std::vector<HangReport> hangs() const;

 private:
  struct Entry {
    std::string name;
    std::string what;
    bool armed = false;
    bool fired = false;
    Clock::time_point deadline;
    std::chrono::milliseconds budget{0};
  };

  void loop();

  HangHandler on_hang_;
  std::chrono::milliseconds poll_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Entry> entries_;
  std::vector<HangReport> hangs_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace pipecheck
