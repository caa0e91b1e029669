// The telemetry sampler thread of the stress run: once an interval, one row per GPU (NVML
// readings, the burn's TFLOP/s and wrong count, Xids since the last row) and one host row (CPU
// utilization, temperature, package power, the CPU burn's rate), handed to a callback that
// writes them out at once. A burn's rate is taken between completions of its work, over at
// least half an interval: a row whose span would be shorter (the last row, 12 ms after the one
// before; a GPU batch longer than the interval) leaves the rate cell empty rather than report
// a rate quantised by the batch size.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "inventory/nvml_library.hpp"
#include "stress/burn_worker.hpp"
#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/host_sampler.hpp"
#include "telemetry/telemetry_csv.hpp"
#include "telemetry/xid_monitor.hpp"

namespace pipecheck {

struct SampledGpu {
  int index = -1;
  std::string bus_id;
  std::optional<nvml::Device> device;  // none: NVML absent or does not know this GPU
  const WorkerCounters* counters = nullptr;
};

struct SamplerSources {
  HostSampler* host = nullptr;              // null: no host rows
  const WorkerCounters* cpu_counters = nullptr;  // the CPU burn, when running
  const NvmlTelemetry* nvml = nullptr;
  XidMonitor* xids = nullptr;
  std::vector<SampledGpu> gpus;
};

// Everything that becomes of one tick: the rows, the Xids that matched no GPU under test, and
// NVML errors per GPU index.
struct SampleTick {
  std::vector<TelemetryRow> rows;
  std::vector<XidEvent> other_xids;
  std::vector<std::pair<int, std::string>> telemetry_errors;
};

// Where a burn's last rate ended: its cumulative FLOPs and the time of the completion that
// brought them (WorkerCounters::completed_ns).
struct RateAnchor {
  double flops = 0;
  std::int64_t completed_ns = 0;
};
// The rate in TFLOP/s from `anchor` to the latest completion, when they are at least min_span_ns
// apart (the anchor then moves there); else none, and the span goes on growing.
std::optional<double> burn_rate_tflops(RateAnchor& anchor, double flops, std::int64_t completed_ns,
                                       std::int64_t min_span_ns);

class TelemetrySampler {
 public:
  using Clock = std::chrono::steady_clock;
  using Sink = std::function<void(SampleTick&)>;

  TelemetrySampler(SamplerSources sources, std::chrono::milliseconds interval, Clock::time_point start,
                   Sink sink);
  ~TelemetrySampler();
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  void start();
  // Takes one last sample, so the record ends at the end of the run, then stops the thread.
  void stop();
  // One tick now, on the caller's thread (the thread calls this too).
  void sample_once();

 private:
  void loop();
  TelemetryRow gpu_row(const SampledGpu& gpu, std::string& error);
  TelemetryRow host_row(Clock::time_point now);
  void add_rate(TelemetryRow& row, const WorkerCounters* counters, RateAnchor& anchor) const;

  SamplerSources sources_;
  std::chrono::milliseconds interval_;
  Clock::time_point start_;
  Sink sink_;
  std::vector<RateAnchor> anchors_;  // per GPU, then the CPU burn last
  std::mutex mutex_;  // one tick at a time
  std::mutex stop_mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};


}  // namespace pipecheck
