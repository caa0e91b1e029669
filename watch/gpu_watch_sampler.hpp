// The GPU side of the watch through NVML (loaded at run time): per GPU utilization, SM clock,
// power against its limit, memory used, PCIe throughput each way and clock-event reasons, and
// which GPUs the job's processes hold a context on. Without NVML every GPU figure stays empty
// and the watch goes on with the CPU and disk rules.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "inventory/nvml_library.hpp"
#include "telemetry/gpu_telemetry.hpp"
#include "watch/watch_sample.hpp"

namespace pipecheck {

// nvmlDeviceGetPcieThroughput's reading, in KB/s of 1024 bytes over a 20 ms window (NVML's
// header; nvidia-smi dmon's rxpci/txpci show it divided by 1024, as MB/s): in MB/s of 1e6 bytes,
// the unit of GpuWatch::pcie_rx_mbs/pcie_tx_mbs.
double nvml_pcie_kbs_to_mbs(unsigned kbs);

// nvmlProcessInfo_t, the v2/v3 layout of nvmlDeviceGetComputeRunningProcesses_v2/_v3.
struct NvmlProcessInfo {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};
// The pids NVML lists, or nullopt when it cannot list them. `list(count, infos)` is the NVML call;
// when it answers NVML_ERROR_INSUFFICIENT_SIZE it has filled nothing and set `count` to what it
// needs, so it is asked again with that much room. Only the `count` entries a successful call
// filled are read.
std::optional<std::set<unsigned>> running_process_pids(
    const std::function<nvml::Return(unsigned* count, NvmlProcessInfo* infos)>& list);

class GpuWatchSampler {
 public:
  // nvml may be null (GPU sampling off); otherwise it must outlive the sampler.
  explicit GpuWatchSampler(const NvmlLibrary* nvml);

  // Whether any GPU is sampled; when not, why ("no NVML: GPU columns empty (...)").
  bool available() const { return !gpus_.empty(); }
  const std::string& why_unavailable() const { return why_; }
  // Calls that failed other than "not supported", once each, for the report's notes.
  const std::vector<std::string>& notes() const { return notes_; }
  // "gpu0 0000:17:00.0 NVIDIA H100 80GB HBM3" per sampled GPU.
  std::vector<std::string> describe() const;

  // One reading of every GPU. `job_pids`: the job's processes. Where NVML lists some of them,
  // only their GPUs are the job's (job = true); where it lists no process on any GPU, none is;
  // where it lists only others' (another pid namespace, a container), every GPU counts.
  std::vector<GpuWatch> sample(const std::vector<int>& job_pids);

 private:
  struct Gpu {
    int index = -1;
    std::string bus_id;
    std::string name;
    nvml::Device device = nullptr;
  };

  GpuWatch read(const Gpu& gpu);
  std::optional<std::set<unsigned>> context_pids(const Gpu& gpu);
  void note(const std::string& text);

  const NvmlLibrary* nvml_;
  std::optional<NvmlTelemetry> telemetry_;
  std::vector<Gpu> gpus_;
  std::string why_;
  std::vector<std::string> notes_;
  nvml::Return (*pcie_throughput_)(nvml::Device, int, unsigned*) = nullptr;
  nvml::Return (*running_processes_)(nvml::Device, unsigned*, NvmlProcessInfo*) = nullptr;
};

}  // namespace pipecheck
