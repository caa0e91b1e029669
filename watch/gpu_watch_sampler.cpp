// Reading the GPUs for the watch. Extra NVML entry points are resolved by name; a driver
// without one leaves that figure empty.
#include "watch/gpu_watch_sampler.hpp"

#include <algorithm>

#include "inventory/gpu_inventory.hpp"

namespace pipecheck {

namespace {

constexpr int pcie_tx_bytes = 0;  // NVML_PCIE_UTIL_TX_BYTES: out of the GPU, KB/s over 20 ms
constexpr int pcie_rx_bytes = 1;  // NVML_PCIE_UTIL_RX_BYTES: into the GPU
constexpr nvml::Return insufficient_size = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr unsigned first_room = 64;            // processes asked for first; more when NVML needs it
constexpr unsigned most_processes = 1 << 16;

}  // namespace

double nvml_pcie_kbs_to_mbs(unsigned kbs) { return static_cast<double>(kbs) * 1024.0 / 1e6; }

std::optional<std::set<unsigned>> running_process_pids(
    const std::function<nvml::Return(unsigned* count, NvmlProcessInfo* infos)>& list) {
  unsigned room = first_room;
  // Processes may start between the calls: a few tries, each with room for what NVML last needed.
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::vector<NvmlProcessInfo> infos(room);
    unsigned count = room;
    const nvml::Return rc = list(&count, infos.data());
    if (rc == insufficient_size && count > room && count <= most_processes) {
      room = count + 8;
      continue;
    }
    if (rc != nvml::success) return std::nullopt;
    std::set<unsigned> pids;
    for (unsigned i = 0; i < std::min(count, room); ++i) pids.insert(infos[i].pid);
    return pids;
  }
  return std::nullopt;
}

GpuWatchSampler::GpuWatchSampler(const NvmlLibrary* nvml) : nvml_(nvml) {
  if (!nvml) {
    why_ = "GPU sampling off: GPU columns empty";
    return;
  }
  if (!nvml->ok()) {
    std::string error = nvml->error();
    if (error.rfind("NVML: ", 0) == 0) error.erase(0, 6);  // said once: "no NVML: ... (libnvidia-ml.so.1 not found)"
    why_ = "no NVML: GPU columns empty (" + error + ")";
    return;
  }
  telemetry_.emplace(*nvml);
  pcie_throughput_ = nvml->resolve<nvml::Return(nvml::Device, int, unsigned*)>("nvmlDeviceGetPcieThroughput");
  running_processes_ = nvml->resolve<nvml::Return(nvml::Device, unsigned*, NvmlProcessInfo*)>(
      "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!running_processes_) {
    running_processes_ = nvml->resolve<nvml::Return(nvml::Device, unsigned*, NvmlProcessInfo*)>(
        "nvmlDeviceGetComputeRunningProcesses_v2");
  }
  const NvmlReport report = query_nvml(*nvml);
  for (const auto& error : report.errors) note(error);
  int index = 0;
  for (const auto& facts : report.devices) {
    Gpu gpu;
    gpu.index = index++;
    gpu.bus_id = normalize_bdf(facts.pci_bus_id).value_or(facts.pci_bus_id);
    gpu.name = facts.name;
    std::string why;
    const auto device = telemetry_->device(gpu.bus_id, &why);
    if (!device) {
      note("gpu" + std::to_string(gpu.index) + ": " + why);
      continue;
    }
    gpu.device = *device;
    gpus_.push_back(gpu);
  }
  if (gpus_.empty()) why_ = "NVML sees no GPU: GPU columns empty";
}

void GpuWatchSampler::note(const std::string& text) {
  if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(text);
}

std::vector<std::string> GpuWatchSampler::describe() const {
  std::vector<std::string> lines;
  for (const auto& gpu : gpus_) lines.push_back("gpu" + std::to_string(gpu.index) + " " + gpu.bus_id + " " + gpu.name);
  return lines;
}

GpuWatch GpuWatchSampler::read(const Gpu& gpu) {
  GpuWatch out;
  out.index = gpu.index;
  out.bus_id = gpu.bus_id;
  const GpuReading reading = telemetry_->read(gpu.device, gpu.bus_id);
  if (!reading.error.empty()) note(reading.error);
  out.util_pct = reading.util_gpu_pct;
  out.mem_util_pct = reading.util_mem_pct;
  out.sm_clock_mhz = reading.sm_clock_mhz;
  out.power_w = reading.power_w;
  out.power_limit_w = reading.power_limit_w;
  out.throttle_mask = reading.throttle_mask;
  nvml::Memory memory{};
  if (NvmlLibrary::call(nvml_->api().device_get_memory_info, gpu.device, &memory) == nvml::success) {
    out.mem_used_mib = static_cast<double>(memory.used) / (1024.0 * 1024.0);
  }
  unsigned rx_kbs = 0;
  unsigned tx_kbs = 0;
  if (NvmlLibrary::call(pcie_throughput_, gpu.device, pcie_rx_bytes, &rx_kbs) == nvml::success) {
    out.pcie_rx_mbs = nvml_pcie_kbs_to_mbs(rx_kbs);
  }
  if (NvmlLibrary::call(pcie_throughput_, gpu.device, pcie_tx_bytes, &tx_kbs) == nvml::success) {
    out.pcie_tx_mbs = nvml_pcie_kbs_to_mbs(tx_kbs);
  }
  return out;
}

std::optional<std::set<unsigned>> GpuWatchSampler::context_pids(const Gpu& gpu) {
  return running_process_pids([&](unsigned* count, NvmlProcessInfo* infos) {
    return NvmlLibrary::call(running_processes_, gpu.device, count, infos);
  });
}

std::vector<GpuWatch> GpuWatchSampler::sample(const std::vector<int>& job_pids) {
  std::vector<GpuWatch> readings;
  bool any_job_context = false;
  bool listed_all = true;   // every GPU answered the process query
  bool any_context = false; // some process, ours or not, has a context somewhere
  std::vector<bool> on_gpu;
  for (const auto& gpu : gpus_) {
    readings.push_back(read(gpu));
    const auto pids = context_pids(gpu);
    listed_all = listed_all && pids.has_value();
    any_context = any_context || (pids && !pids->empty());
    bool mine = false;
    for (int pid : job_pids) mine = mine || (pids && pids->count(static_cast<unsigned>(pid)));
    on_gpu.push_back(mine);
    any_job_context = any_job_context || mine;
  }
  // Ours on some GPUs: those are the job's. No context on any GPU at all: the job uses none (yet).
  // Others' contexts but none of ours: maybe another pid namespace (a container): every GPU counts.
  const bool none_used = listed_all && !any_context && !job_pids.empty();
  for (std::size_t i = 0; i < readings.size(); ++i) {
    if (any_job_context) readings[i].job = on_gpu[i];
    if (none_used) readings[i].job = false;
  }
  return readings;
}

}  // namespace pipecheck
