// Sampling GPU and host telemetry into rows once an interval.
#include "stress/telemetry_sampler.hpp"

#include "core/utc_clock.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace pipecheck {

TelemetrySampler::TelemetrySampler(SamplerSources sources, std::chrono::milliseconds interval,
                                   Clock::time_point start, Sink sink)
    : sources_(std::move(sources)), interval_(interval), start_(start), sink_(std::move(sink)),
      anchors_(sources_.gpus.size() + 1) {}

TelemetrySampler::~TelemetrySampler() {
  {
    const std::lock_guard lock(stop_mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TelemetrySampler::start() {
  // The first host sample only primes the counters that rates need.
  if (sources_.host) sources_.host->sample(Clock::now());
  const std::int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  for (std::size_t i = 0; i < anchors_.size(); ++i) {
    const WorkerCounters* counters = i < sources_.gpus.size() ? sources_.gpus[i].counters : sources_.cpu_counters;
    anchors_[i] = {counters ? counters->flops.load() : 0.0, now_ns};
  }
  thread_ = std::thread([this] { loop(); });
}

void TelemetrySampler::stop() {
  {
    const std::lock_guard lock(stop_mutex_);
    if (stop_) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  sample_once();
}

void TelemetrySampler::loop() {
  auto next = Clock::now() + interval_;
  std::unique_lock lock(stop_mutex_);
  while (!stop_) {
    // Against a fixed schedule, so the rows do not drift by the sampling time.
    if (wake_.wait_until(lock, next, [this] { return stop_; })) break;
    lock.unlock();
    sample_once();
    lock.lock();
    next += interval_;
    if (next < Clock::now()) next = Clock::now() + interval_;
  }
}

TelemetryRow TelemetrySampler::gpu_row(const SampledGpu& gpu, std::string& error) {
  TelemetryRow row;
  row.source = "gpu";
  row.gpu_index = gpu.index;
  row.gpu_bus_id = gpu.bus_id;
  if (gpu.device && sources_.nvml) {
    const GpuReading reading = sources_.nvml->read(*gpu.device, gpu.bus_id);
    row.temp_c = reading.temp_c;
    row.mem_temp_c = reading.mem_temp_c;
    row.power_w = reading.power_w;
    row.power_limit_w = reading.power_limit_w;
    row.sm_clock_mhz = reading.sm_clock_mhz;
    row.mem_clock_mhz = reading.mem_clock_mhz;
    row.util_gpu_pct = reading.util_gpu_pct;
    row.util_mem_pct = reading.util_mem_pct;
    row.throttle_mask = reading.throttle_mask;
    row.ecc_corrected = reading.ecc_corrected;
    row.ecc_uncorrected = reading.ecc_uncorrected;
    row.pcie_replays = reading.pcie_replays;
    error = reading.error;
  }
  return row;
}

TelemetryRow TelemetrySampler::host_row(Clock::time_point now) {
  TelemetryRow row;
  row.source = "host";
  const HostReading reading = sources_.host->sample(now);
  row.cpu_util_pct = reading.cpu_util_pct;
  row.cpu_temp_c = reading.cpu_temp_c;
  row.cpu_package_w = reading.cpu_package_w;
  return row;
}

std::optional<double> burn_rate_tflops(RateAnchor& anchor, double flops, std::int64_t completed_ns,
                                       std::int64_t min_span_ns) {
  if (completed_ns == 0 || completed_ns - anchor.completed_ns < std::max<std::int64_t>(min_span_ns, 1)) {
    return std::nullopt;
  }
  const double rate = (flops - anchor.flops) / (static_cast<double>(completed_ns - anchor.completed_ns) * 1e-9) / 1e12;
  anchor = {flops, completed_ns};
  return rate;
}

// Rates over at least half an interval.
void TelemetrySampler::add_rate(TelemetryRow& row, const WorkerCounters* counters, RateAnchor& anchor) const {
  if (!counters) return;
  row.wrong_results = counters->wrong_results.load() + counters->memory_errors.load();
  // The time first: work completed after it is counted in this rate or the next, never lost.
  const std::int64_t completed_ns = counters->completed_ns.load(std::memory_order_acquire);
  const double flops = counters->flops.load();
  row.tflops = burn_rate_tflops(anchor, flops, completed_ns,
                                std::chrono::duration_cast<std::chrono::nanoseconds>(interval_).count() / 2);
}

void TelemetrySampler::sample_once() {
  const std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  SampleTick tick;
  const std::string utc = utc_now_iso_ms();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::vector<XidEvent> xids = sources_.xids ? sources_.xids->take() : std::vector<XidEvent>{};
  for (std::size_t i = 0; i < sources_.gpus.size(); ++i) {
    const SampledGpu& gpu = sources_.gpus[i];
    std::string error;
    TelemetryRow row = gpu_row(gpu, error);
    if (!error.empty()) tick.telemetry_errors.emplace_back(gpu.index, error);
    add_rate(row, gpu.counters, anchors_[i]);
    for (auto it = xids.begin(); it != xids.end();) {
      if (it->bus_id == gpu.bus_id) {
        row.xids.push_back(it->xid);
        it = xids.erase(it);
      } else {
        ++it;
      }
    }
    tick.rows.push_back(std::move(row));
  }
  tick.other_xids = std::move(xids);
  if (sources_.host) {
    TelemetryRow row = host_row(now);
    add_rate(row, sources_.cpu_counters, anchors_.back());
    tick.rows.push_back(std::move(row));
  }
  for (auto& row : tick.rows) {
    row.utc_time = utc;
    row.elapsed_s = elapsed;
  }
  if (sink_) sink_(tick);
}

}  // namespace pipecheck
