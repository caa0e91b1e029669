// The GPU side of the conditions around a probe: which other processes held a GPU and which
// clock events (thermal, power, hardware slowdown) the GPUs reported while it ran, read through
// NVML every 250 ms on a thread of the driver (DCGM refuses to diagnose a GPU others are using).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/run_conditions.hpp"
#include "inventory/nvml_processes.hpp"

namespace pipecheck {

// One GPU at one moment: processes not pipecheck's own, and its clock-event reasons.
struct GpuObservation {
  std::string gpu;  // PCI bus id
  std::vector<NvmlGpuProcess> others;
  std::optional<unsigned long long> clock_events;
};

// Folds the observations into `conditions`: each other process once (its largest memory), and
// per GPU the clock-event reasons seen at any moment (GpuIdle left out: an idle GPU is not held
// back). `command_of` names a pid ("" when it cannot).
void merge_gpu_observations(RunConditions& conditions, const std::vector<GpuObservation>& observations,
                            const std::function<std::string(int)>& command_of);

// True when `pid` is `ancestor` or runs under it (the probe and what it started).
bool descends_from(int pid, int ancestor, const SysfsRoot& root = SysfsRoot("/"));

class GpuConditionsWatch {
 public:
  // Loads NVML once; without it (or without a GPU) it watches nothing and note() says why.
  GpuConditionsWatch();
  ~GpuConditionsWatch();
  GpuConditionsWatch(const GpuConditionsWatch&) = delete;
  GpuConditionsWatch& operator=(const GpuConditionsWatch&) = delete;

  bool watching() const { return !gpus_.empty(); }
  const std::string& note() const { return note_; }
  // Every GPU now, pipecheck's own processes left out.
  std::vector<GpuObservation> observe();
  // Observes every 250 ms from start() until stop_into(), which fills `conditions`.
  void start();
  void stop_into(RunConditions& conditions);

 private:
  void loop();

  std::unique_ptr<NvmlLibrary> nvml_;
  std::vector<NvmlGpuHandle> gpus_;
  std::string note_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<GpuObservation> seen_;
};

}  // namespace pipecheck
