// Watching the GPUs around a probe (see gpu_conditions_watch.hpp).
#include "app/gpu_conditions_watch.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/top_processes.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

constexpr unsigned long long kGpuIdle = 0x1;  // nvmlClocksEventReasonGpuIdle
constexpr auto kInterval = std::chrono::milliseconds(250);

std::string command_from_proc(int pid) {
  const auto comm = SysfsRoot("/").read_line("/proc/" + std::to_string(pid) + "/comm");
  return comm ? *comm : "";
}

}  // namespace

bool descends_from(int pid, int ancestor, const SysfsRoot& root) {
  for (int step = 0; step < 64 && pid > 1; ++step) {
    if (pid == ancestor) return true;
    const auto line = root.read_line("/proc/" + std::to_string(pid) + "/stat");
    ProcessTimes times;
    if (!line || !parse_process_stat(*line, times)) return false;
    pid = times.ppid;
  }
  return pid == ancestor;
}

void merge_gpu_observations(RunConditions& conditions, const std::vector<GpuObservation>& observations,
                            const std::function<std::string(int)>& command_of) {
  std::map<std::pair<std::string, int>, unsigned long long> holders;  // (gpu, pid) -> most memory
  std::map<std::string, unsigned long long> events;                    // gpu -> reasons seen
  std::vector<std::string> gpu_order;
  for (const auto& o : observations) {
    if (std::find(gpu_order.begin(), gpu_order.end(), o.gpu) == gpu_order.end()) gpu_order.push_back(o.gpu);
    for (const auto& p : o.others) {
      auto& memory = holders[{o.gpu, p.pid}];
      memory = std::max(memory, p.used_memory_bytes);
    }
    if (o.clock_events) events[o.gpu] |= *o.clock_events & ~kGpuIdle;
  }
  conditions.gpu_processes.clear();
  for (const auto& [where, memory] : holders) {
    conditions.gpu_processes.push_back({where.second, command_of(where.second), where.first, memory});
  }
  conditions.gpu_clock_events.clear();
  for (const auto& gpu : gpu_order) {
    const auto it = events.find(gpu);
    if (it != events.end() && it->second != 0) {
      conditions.gpu_clock_events.push_back(gpu + ": " + clock_event_reasons_text(it->second));
    }
  }
}

GpuConditionsWatch::GpuConditionsWatch() : nvml_(std::make_unique<NvmlLibrary>()) {
  std::string error;
  gpus_ = nvml_gpu_handles(*nvml_, error);
  if (!error.empty()) note_ = "GPUs not watched: " + error;
  else if (gpus_.empty()) note_ = "GPUs not watched: NVML sees no GPU";
}

GpuConditionsWatch::~GpuConditionsWatch() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

std::vector<GpuObservation> GpuConditionsWatch::observe() {
  std::vector<GpuObservation> now;
  const int self = static_cast<int>(getpid());
  for (const auto& gpu : gpus_) {
    GpuObservation o;
    o.gpu = gpu.bus_id;
    std::string error;
    for (const auto& p : gpu_running_processes(*nvml_, gpu.device, error)) {
      if (!descends_from(p.pid, self)) o.others.push_back(p);
    }
    o.clock_events = gpu_clock_event_reasons(*nvml_, gpu.device);
    now.push_back(std::move(o));
  }
  return now;
}

namespace {

// Kept only when it differs from the GPU's last kept observation: a long probe on a busy GPU
// keeps a handful, not one every 250 ms.
bool same_observation(const GpuObservation& a, const GpuObservation& b) {
  if (a.gpu != b.gpu || a.clock_events != b.clock_events || a.others.size() != b.others.size()) return false;
  for (std::size_t i = 0; i < a.others.size(); ++i) {
    if (a.others[i].pid != b.others[i].pid || a.others[i].used_memory_bytes != b.others[i].used_memory_bytes) return false;
  }
  return true;
}

}  // namespace

void GpuConditionsWatch::loop() {
  while (!stop_.load()) {
    auto now = observe();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& o : now) {
        const auto last = std::find_if(seen_.rbegin(), seen_.rend(), [&](const GpuObservation& s) { return s.gpu == o.gpu; });
        if (last == seen_.rend() || !same_observation(*last, o)) seen_.push_back(std::move(o));
      }
    }
    const auto wake = std::chrono::steady_clock::now() + kInterval;
    while (!stop_.load() && std::chrono::steady_clock::now() < wake) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void GpuConditionsWatch::start() {
  if (!watching() || thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    seen_.clear();
  }
  stop_.store(false);
  thread_ = std::thread([this] { loop(); });
}

void GpuConditionsWatch::stop_into(RunConditions& conditions) {
  conditions.gpu_note = note_;
  if (!thread_.joinable()) return;
  stop_.store(true);
  thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  merge_gpu_observations(conditions, seen_, command_from_proc);
  seen_.clear();
}

}  // namespace pipecheck
