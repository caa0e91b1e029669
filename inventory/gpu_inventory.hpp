// The GPU part of the inventory: CUDA facts and NVML facts joined by PCI bus id, with the PCIe
// path and NUMA node from sysfs. The merge is pure over plain structs so it is tested without a
// GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inventory/cuda_devices.hpp"
#include "core/inventory.hpp"
#include "inventory/nvml_library.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

// What NVML says about one device (query_nvml fills it; tests write it by hand).
struct NvmlGpuFacts {
  std::string pci_bus_id;  // as NVML reports it: "00000000:17:00.0"
  std::string name;
  std::string uuid;
  std::optional<int> max_sm_clock_mhz;
  std::optional<int> max_mem_clock_mhz;
  std::optional<int> curr_link_generation;
  std::optional<int> curr_link_width;
  std::optional<int> max_link_generation;
  std::optional<int> max_link_width;
  std::optional<unsigned> power_limit_mw;  // enforced power limit
  std::optional<int> memory_bus_width_bits;
  std::optional<std::uint64_t> memory_total_bytes;
  int nvlink_active = 0;
  int nvlink_probed = 0;
  std::optional<int> nvlink_version_code;  // nvmlDeviceGetNvLinkVersion, raw
  std::vector<std::string> errors;         // failed calls other than "not supported"
};

struct NvmlReport {
  bool loaded = false;
  std::string error;  // why NVML is not loaded ("NVML: libnvidia-ml.so.1 not found: ...")
  std::optional<std::string> driver_version;  // "580.65.06"
  std::optional<int> cuda_driver_version;     // nvmlSystemGetCudaDriverVersion_v2, 12040 = 12.4
  std::vector<NvmlGpuFacts> devices;
  std::vector<std::string> errors;  // enumeration failures
};

// "0000:17:00.0" from its parts (CUDA has no function number: GPUs are function 0).
std::string format_bdf(unsigned domain, unsigned bus, unsigned device, unsigned function = 0);
// The sysfs spelling of a PCI address: lowercase hex, domain with at least 4 digits.
// "00000000:17:00.0" (NVML) -> "0000:17:00.0"; "0000:B3:00.0" -> "0000:b3:00.0";
// "17:00.0" -> "0000:17:00.0"; anything else -> nullopt.
std::optional<std::string> normalize_bdf(const std::string& text);
// NVLink generation from nvmlDeviceGetNvLinkVersion's nvmlNvlinkVersion_t code
// (1 -> 1.0, 2 -> 2.0, 3 -> 2.2, 4 -> 3.0, 5 -> 3.1, 6 -> 4.0, 7 -> 5.0, 8 -> 6.0).
std::optional<int> nvlink_generation_of_code(int code);

// The NVLink generation of an architecture whose parts all carry one generation: 6.0 (P100) 1,
// 7.0 (V100) 2, 8.0 (A100) 3, 9.0 (H100, H200, GH200) 4, 10.x (B200, B300) 5; nullopt for the
// rest (GA102 boards, Turing and others differ by board).
std::optional<int> nvlink_generation_of_cc(int cc_major, int cc_minor);

// Where NVML's NVLink version code maps to another generation than the compute capability gives
// (drivers before the nvmlNvlinkVersion_t codes returned the generation itself: 4 on an H100
// reads as "3.0"), the compute capability's generation is kept, with a note.
void reconcile_nvlink_generation(GpuInfo& gpu, std::vector<std::string>& notes);

// Asks a loaded NVML about every device. With !nvml.ok(), returns loaded=false and its error.
NvmlReport query_nvml(const NvmlLibrary& nvml);

// Joins CUDA and NVML facts by PCI bus id (never by loop index: CUDA's order follows
// CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES, NVML's does not). CUDA-visible GPUs come first in
// CUDA order, then NVML-only GPUs by bus id. Structural facts (memory, bus width, L2, SMs) come
// from CUDA, clocks, UUID, power, NVLink and PCIe link from NVML; each fills the other's gaps.
// Appends to notes why facts are missing (NVML not loaded, CUDA failed, a GPU seen by one only).
std::vector<GpuInfo> merge_gpu_facts(const CudaReport& cuda, const NvmlReport& nvml,
                                     std::vector<std::string>& notes);

// Joins the NVIDIA GPUs on the PCI bus (nvidia_gpus_on_bus) into the CUDA/NVML list by bus id:
// a GPU both know gets "pci" in seen_by and its bound driver and device id; a GPU only the bus
// lists is appended as it is (seen_by {"pci"}).
void add_bus_gpus(std::vector<GpuInfo>& gpus, const std::vector<GpuInfo>& on_bus);

// CUDA's error in words: "CUDA driver version is insufficient for CUDA runtime version" on a
// machine without libcuda.so.1 at all is no driver, not an old one.
std::string explain_cuda_error(const std::string& error, bool libcuda_found);

// The minor number N of /dev/nvidiaN the NVIDIA driver gave a GPU, from
// /proc/driver/nvidia/gpus/<bus id>/information ("Device Minor: 3"); nullopt when it says none.
std::optional<int> nvidia_device_minor(const SysfsRoot& sys, const std::string& bdf);

// Where /sys/bus/pci/devices/<BDF> exists: the PCIe link as the narrowest hop up to the root
// port (replacing NVML's, which only sees the GPU's own link) and the NUMA node (-1 -> empty).
void add_sysfs_gpu_facts(const SysfsRoot& sys, std::vector<GpuInfo>& gpus);

// Fills the CUDA/NVML fields of the software stack: cuda_built, runtime_cuda_version,
// driver_cuda_version (CUDA, else NVML), cuda_error, nvml_loaded, nvml_error and
// driver_version (NVML's replaces the /proc one read_software_stack found).
void fill_gpu_software_facts(const CudaReport& cuda, const NvmlReport& nvml, SoftwareStack& stack);

// The live collector: calls CUDA and NVML for real, merges, adds the GPUs on the bus and sysfs
// facts, fills the CUDA/NVML fields of `stack` (call read_software_stack first for the rest)
// and records in notes why CUDA or NVML facts are missing. Never throws for a missing GPU,
// driver or library. ask_cuda false: NVML, the bus and sysfs only (no cuInit), the CUDA facts
// left empty on purpose (`check --fast`).
std::vector<GpuInfo> read_gpus(const SysfsRoot& sys, const std::vector<GpuInfo>& on_bus, SoftwareStack& stack,
                               std::vector<std::string>& notes, bool ask_cuda = true);

}  // namespace pipecheck
