// Joining CUDA and NVML facts by PCI bus id, adding sysfs PCIe path and NUMA facts, and the live
// collector that asks CUDA and NVML.
#include "inventory/gpu_inventory.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <regex>

#include "inventory/pcie_link.hpp"
#include "pipecheck_config.hpp"

namespace pipecheck {

std::string format_bdf(unsigned domain, unsigned bus, unsigned device, unsigned function) {
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", domain, bus & 0xffu, device & 0x1fu,
                function & 0x7u);
  return text;
}

std::optional<std::string> normalize_bdf(const std::string& text) {
  // Domain optional (CUDA's legacy "17:00.0"), any width (NVML pads it to 8 digits).
  static const std::regex bdf(
      R"(^\s*(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])\s*$)");
  std::smatch match;
  if (!std::regex_match(text, match, bdf)) return std::nullopt;
  const unsigned domain = match[1].matched ? std::stoul(match[1].str(), nullptr, 16) : 0;
  const unsigned bus = std::stoul(match[2].str(), nullptr, 16);
  const unsigned device = std::stoul(match[3].str(), nullptr, 16);
  const unsigned function = std::stoul(match[4].str(), nullptr, 16);
  if (device > 0x1f) return std::nullopt;
  return format_bdf(domain, bus, device, function);
}

std::optional<int> nvlink_generation_of_code(int code) {
  // nvmlNvlinkVersion_t: INVALID 0, 1_0, 2_0, 2_2, 3_0, 3_1, 4_0, 5_0, 6_0.
  static const int generation[] = {0, 1, 2, 2, 3, 3, 4, 5, 6};
  if (code < 1 || code >= static_cast<int>(std::size(generation))) return std::nullopt;
  return generation[code];
}

std::optional<int> nvlink_generation_of_cc(int cc_major, int cc_minor) {
  if (cc_major == 6 && cc_minor == 0) return 1;
  if (cc_major == 7 && cc_minor == 0) return 2;
  if (cc_major == 8 && cc_minor == 0) return 3;
  if (cc_major == 9 && cc_minor == 0) return 4;
  if (cc_major == 10) return 5;
  return std::nullopt;
}

void reconcile_nvlink_generation(GpuInfo& gpu, std::vector<std::string>& notes) {
  if (gpu.nvlink.active_links <= 0 || gpu.cuda_index < 0) return;
  const auto from_cc = nvlink_generation_of_cc(gpu.cc_major, gpu.cc_minor);
  if (!from_cc || gpu.nvlink.version == from_cc) return;
  if (gpu.nvlink.version) {
    notes.push_back("GPU " + gpu.pci_bdf + ": NVML's NVLink version code " +
                    std::to_string(gpu.nvlink.nvml_version_code.value_or(-1)) + " reads as NVLink " +
                    std::to_string(*gpu.nvlink.version) + ", compute capability " + std::to_string(gpu.cc_major) + "." +
                    std::to_string(gpu.cc_minor) + " has NVLink " + std::to_string(*from_cc) + ": NVLink " +
                    std::to_string(*from_cc) + " used");
  }
  gpu.nvlink.version = from_cc;
  gpu.nvlink.version_source = "compute capability";
}

namespace {

std::string c_string(const char* buffer, std::size_t size) {
  return std::string(buffer, strnlen(buffer, size));
}

// The facts of one NVML device. Calls that the device does not support leave the fact empty;
// other failures are kept so the notes can say which call failed on which GPU.
NvmlGpuFacts query_nvml_device(const NvmlLibrary& nvml, nvml::Device device,
                               const std::string& bus_id) {
  const NvmlApi& api = nvml.api();
  NvmlGpuFacts facts;
  facts.pci_bus_id = bus_id;
  auto ok = [&](const char* call_name, nvml::Return rc) {
    if (rc == nvml::success) return true;
    if (rc != nvml::error_not_supported && rc != nvml::error_function_not_found) {
      facts.errors.push_back(nvml.error_text(call_name, rc, bus_id));
    }
    return false;
  };
  auto unsigned_fact = [&](const char* call_name, auto fn) -> std::optional<int> {
    unsigned value = 0;
    if (!ok(call_name, NvmlLibrary::call(fn, device, &value))) return std::nullopt;
    return static_cast<int>(value);
  };

  char text[nvml::string_buffer_size] = {};
  if (ok("nvmlDeviceGetName", NvmlLibrary::call(api.device_get_name, device, text, sizeof text))) {
    facts.name = c_string(text, sizeof text);
  }
  std::memset(text, 0, sizeof text);
  if (ok("nvmlDeviceGetUUID", NvmlLibrary::call(api.device_get_uuid, device, text, sizeof text))) {
    facts.uuid = c_string(text, sizeof text);
  }
  unsigned mhz = 0;
  if (ok("nvmlDeviceGetMaxClockInfo",
         NvmlLibrary::call(api.device_get_max_clock_info, device, nvml::clock_sm, &mhz))) {
    facts.max_sm_clock_mhz = static_cast<int>(mhz);
  }
  if (ok("nvmlDeviceGetMaxClockInfo",
         NvmlLibrary::call(api.device_get_max_clock_info, device, nvml::clock_mem, &mhz))) {
    facts.max_mem_clock_mhz = static_cast<int>(mhz);
  }
  facts.curr_link_generation = unsigned_fact("nvmlDeviceGetCurrPcieLinkGeneration",
                                             api.device_get_curr_pcie_link_generation);
  facts.curr_link_width =
      unsigned_fact("nvmlDeviceGetCurrPcieLinkWidth", api.device_get_curr_pcie_link_width);
  facts.max_link_generation =
      unsigned_fact("nvmlDeviceGetMaxPcieLinkGeneration", api.device_get_max_pcie_link_generation);
  facts.max_link_width =
      unsigned_fact("nvmlDeviceGetMaxPcieLinkWidth", api.device_get_max_pcie_link_width);
  facts.memory_bus_width_bits =
      unsigned_fact("nvmlDeviceGetMemoryBusWidth", api.device_get_memory_bus_width);
  unsigned milliwatts = 0;
  if (ok("nvmlDeviceGetEnforcedPowerLimit",
         NvmlLibrary::call(api.device_get_enforced_power_limit, device, &milliwatts))) {
    facts.power_limit_mw = milliwatts;
  }
  nvml::Memory memory{};
  if (ok("nvmlDeviceGetMemoryInfo",
         NvmlLibrary::call(api.device_get_memory_info, device, &memory))) {
    facts.memory_total_bytes = memory.total;
  }

  for (unsigned link = 0; link < nvml::nvlink_max_links; ++link) {
    int state = 0;
    const nvml::Return rc = NvmlLibrary::call(api.device_get_nvlink_state, device, link, &state);
    // "Invalid argument" past the device's last link; "not supported" on a GPU without NVLink.
    if (rc == nvml::error_invalid_argument || rc == nvml::error_not_supported) break;
    if (!ok("nvmlDeviceGetNvLinkState", rc)) break;
    ++facts.nvlink_probed;
    if (state != nvml::feature_enabled) continue;
    ++facts.nvlink_active;
    if (!facts.nvlink_version_code) {
      unsigned code = 0;
      if (ok("nvmlDeviceGetNvLinkVersion",
             NvmlLibrary::call(api.device_get_nvlink_version, device, link, &code))) {
        facts.nvlink_version_code = static_cast<int>(code);
      }
    }
  }
  return facts;
}

template <typename T>
void fill_gap(std::optional<T>& into, const std::optional<T>& other) {
  if (!into && other) into = other;
}

void add_seen_by(GpuInfo& gpu, const char* who) {
  if (std::find(gpu.seen_by.begin(), gpu.seen_by.end(), who) == gpu.seen_by.end()) gpu.seen_by.push_back(who);
}

void apply_nvml_facts(const NvmlGpuFacts& facts, GpuInfo& gpu) {
  add_seen_by(gpu, "nvml");
  if (gpu.name.empty()) gpu.name = facts.name;
  gpu.uuid = facts.uuid;
  // NVML is the authority on clocks (the max boost clock the ceilings use); CUDA fills gaps.
  if (facts.max_sm_clock_mhz) gpu.max_sm_clock_mhz = facts.max_sm_clock_mhz;
  if (facts.max_mem_clock_mhz) gpu.max_mem_clock_mhz = facts.max_mem_clock_mhz;
  fill_gap(gpu.memory_bus_width_bits, facts.memory_bus_width_bits);
  fill_gap(gpu.memory_bytes, facts.memory_total_bytes);
  PcieLink link;
  if (facts.curr_link_generation)
    link.current_gts = pcie_gts_of_generation(*facts.curr_link_generation);
  if (facts.max_link_generation) link.max_gts = pcie_gts_of_generation(*facts.max_link_generation);
  link.current_width = facts.curr_link_width;
  link.max_width = facts.max_link_width;
  if (link.current_gts || link.current_width || link.max_gts || link.max_width) {
    gpu.pcie = link;
    gpu.pcie_source = "nvml";
  }
  if (facts.power_limit_mw) gpu.power_limit_w = *facts.power_limit_mw / 1000.0;
  gpu.nvlink.active_links = facts.nvlink_active;
  gpu.nvlink.total_links_probed = facts.nvlink_probed;
  gpu.nvlink.nvml_version_code = facts.nvlink_version_code;
  if (facts.nvlink_version_code) {
    gpu.nvlink.version = nvlink_generation_of_code(*facts.nvlink_version_code);
    if (gpu.nvlink.version) gpu.nvlink.version_source = "NVML";
  }
}

GpuInfo from_cuda(const CudaDeviceFacts& device) {
  GpuInfo gpu;
  gpu.cuda_index = device.index;
  gpu.seen_by = {"cuda"};
  gpu.name = device.name;
  gpu.pci_bdf = format_bdf(device.pci_domain, device.pci_bus, device.pci_device);
  gpu.cc_major = device.cc_major;
  gpu.cc_minor = device.cc_minor;
  gpu.sm_count = device.sm_count;
  if (device.max_sm_clock_khz && *device.max_sm_clock_khz > 0) {
    gpu.max_sm_clock_mhz = *device.max_sm_clock_khz / 1000;
  }
  if (device.memory_clock_khz && *device.memory_clock_khz > 0) {
    gpu.max_mem_clock_mhz = *device.memory_clock_khz / 1000;
  }
  if (device.memory_bus_width_bits && *device.memory_bus_width_bits > 0) {
    gpu.memory_bus_width_bits = device.memory_bus_width_bits;
  }
  if (device.total_memory_bytes > 0) gpu.memory_bytes = device.total_memory_bytes;
  if (device.l2_bytes && *device.l2_bytes > 0) gpu.l2_bytes = device.l2_bytes;
  return gpu;
}

}  // namespace

NvmlReport query_nvml(const NvmlLibrary& nvml) {
  NvmlReport report;
  if (!nvml.ok()) {
    report.error = nvml.error();
    return report;
  }
  report.loaded = true;
  const NvmlApi& api = nvml.api();
  char text[nvml::string_buffer_size] = {};
  if (NvmlLibrary::call(api.system_get_driver_version, text, sizeof text) == nvml::success) {
    report.driver_version = c_string(text, sizeof text);
  }
  int cuda_version = 0;
  if (NvmlLibrary::call(api.system_get_cuda_driver_version, &cuda_version) == nvml::success &&
      cuda_version > 0) {
    report.cuda_driver_version = cuda_version;
  }
  unsigned count = 0;
  nvml::Return rc = NvmlLibrary::call(api.device_get_count, &count);
  if (rc != nvml::success) {
    report.errors.push_back(nvml.error_text("nvmlDeviceGetCount_v2", rc));
    return report;
  }
  for (unsigned index = 0; index < count; ++index) {
    const std::string where = "index " + std::to_string(index);
    nvml::Device device = nullptr;
    rc = NvmlLibrary::call(api.device_get_handle_by_index, index, &device);
    if (rc != nvml::success) {
      // e.g. no permission on one /dev/nvidiaN in a container: the others are still reported.
      report.errors.push_back(nvml.error_text("nvmlDeviceGetHandleByIndex_v2", rc, where));
      continue;
    }
    nvml::PciInfo pci{};
    rc = NvmlLibrary::call(api.device_get_pci_info, device, &pci);
    if (rc != nvml::success) {
      // Without a bus id the device cannot be joined with CUDA or sysfs.
      report.errors.push_back(nvml.error_text("nvmlDeviceGetPciInfo_v3", rc, where));
      continue;
    }
    std::string bus_id = c_string(pci.bus_id, sizeof pci.bus_id);
    if (!normalize_bdf(bus_id)) bus_id = format_bdf(pci.domain, pci.bus, pci.device);
    report.devices.push_back(query_nvml_device(nvml, device, bus_id));
  }
  return report;
}

std::vector<GpuInfo> merge_gpu_facts(const CudaReport& cuda, const NvmlReport& nvml,
                                     std::vector<std::string>& notes) {
  std::vector<GpuInfo> gpus;
  std::map<std::string, std::size_t> by_bdf;
  std::vector<CudaDeviceFacts> cuda_devices = cuda.devices;
  std::sort(cuda_devices.begin(), cuda_devices.end(),
            [](const CudaDeviceFacts& a, const CudaDeviceFacts& b) { return a.index < b.index; });
  for (const CudaDeviceFacts& device : cuda_devices) {
    by_bdf[format_bdf(device.pci_domain, device.pci_bus, device.pci_device)] = gpus.size();
    gpus.push_back(from_cuda(device));
  }
  const std::size_t cuda_count = gpus.size();

  std::vector<bool> matched(cuda_count, false);
  std::vector<GpuInfo> nvml_only;
  for (const NvmlGpuFacts& facts : nvml.devices) {
    const auto bdf = normalize_bdf(facts.pci_bus_id);
    if (!bdf) {
      notes.push_back("NVML: device '" + facts.name + "' has an unreadable bus id '" +
                      facts.pci_bus_id + "': left out");
      continue;
    }
    for (const std::string& error : facts.errors) notes.push_back("NVML: " + error);
    const auto found = by_bdf.find(*bdf);
    if (found != by_bdf.end()) {
      matched[found->second] = true;
      apply_nvml_facts(facts, gpus[found->second]);
      reconcile_nvlink_generation(gpus[found->second], notes);
      continue;
    }
    GpuInfo gpu;
    gpu.pci_bdf = *bdf;
    apply_nvml_facts(facts, gpu);
    nvml_only.push_back(gpu);
  }
  std::sort(nvml_only.begin(), nvml_only.end(),
            [](const GpuInfo& a, const GpuInfo& b) { return a.pci_bdf < b.pci_bdf; });
  for (const GpuInfo& gpu : nvml_only) {
    notes.push_back("GPU " + gpu.pci_bdf + " (" + gpu.name +
                    ") is seen by NVML but not by CUDA (hidden by CUDA_VISIBLE_DEVICES, or CUDA "
                    "failed): no compute capability, SM count or L2 size");
    gpus.push_back(gpu);
  }
  for (const std::string& error : nvml.errors) notes.push_back("NVML: " + error);

  if (!cuda.error.empty()) {
    notes.push_back("CUDA: " + cuda.error + ": no GPU usable through CUDA; GPU facts from NVML only");
  }
  for (const std::string& error : cuda.device_errors) notes.push_back("CUDA: " + error);

  if (!nvml.loaded) {
    const std::string why = nvml.error.empty() ? "NVML: not loaded" : nvml.error;
    notes.push_back(why + (cuda_count > 0 ? ": UUID, power limit and NVLink unknown; PCIe link "
                                            "from sysfs only"
                                          : ""));
  } else {
    for (std::size_t i = 0; i < cuda_count; ++i) {
      if (!matched[i]) {
        notes.push_back("GPU " + gpus[i].pci_bdf + " (CUDA " + std::to_string(gpus[i].cuda_index) +
                        ") is seen by CUDA but not by NVML: no UUID, power limit or NVLink");
      }
    }
  }
  return gpus;
}

void add_bus_gpus(std::vector<GpuInfo>& gpus, const std::vector<GpuInfo>& on_bus) {
  for (const GpuInfo& bus_gpu : on_bus) {
    const auto bdf = normalize_bdf(bus_gpu.pci_bdf).value_or(bus_gpu.pci_bdf);
    const auto known = std::find_if(gpus.begin(), gpus.end(), [&](const GpuInfo& gpu) {
      return normalize_bdf(gpu.pci_bdf).value_or(gpu.pci_bdf) == bdf;
    });
    if (known == gpus.end()) {
      gpus.push_back(bus_gpu);
      continue;
    }
    add_seen_by(*known, "pci");
    known->pci_driver = bus_gpu.pci_driver;
    known->pci_device_id = bus_gpu.pci_device_id;
    if (!known->device_minor) known->device_minor = bus_gpu.device_minor;
  }
}

std::string explain_cuda_error(const std::string& error, bool libcuda_found) {
  if (!libcuda_found && error.find("driver version is insufficient") != std::string::npos) {
    return "no NVIDIA driver (libcuda.so.1 not found)";
  }
  return error;
}

std::optional<int> nvidia_device_minor(const SysfsRoot& sys, const std::string& bdf) {
  const auto text = sys.read("/proc/driver/nvidia/gpus/" + bdf + "/information");
  if (!text) return std::nullopt;
  static const std::regex minor(R"(Device Minor:\s*([0-9]+))");
  std::smatch match;
  if (!std::regex_search(*text, match, minor)) return std::nullopt;
  return std::stoi(match[1].str());
}

void add_sysfs_gpu_facts(const SysfsRoot& sys, std::vector<GpuInfo>& gpus) {
  for (GpuInfo& gpu : gpus) {
    if (gpu.pci_bdf.empty()) continue;
    const std::string dir = "/sys/bus/pci/devices/" + gpu.pci_bdf;
    if (!sys.exists(dir)) continue;
    const PcieLink path = read_pcie_path_link(sys, gpu.pci_bdf);
    if (path.current_gts || path.current_width) {
      // Keep NVML's value for a field sysfs cannot tell ("Unknown" speed on some bridges).
      PcieLink merged = path;
      fill_gap(merged.current_gts, gpu.pcie.current_gts);
      fill_gap(merged.current_width, gpu.pcie.current_width);
      fill_gap(merged.max_gts, gpu.pcie.max_gts);
      fill_gap(merged.max_width, gpu.pcie.max_width);
      gpu.pcie = merged;
      gpu.pcie_source = "sysfs";
    }
    if (const auto node = sys.read_int(dir + "/numa_node"); node && *node >= 0) {
      gpu.numa_node = static_cast<int>(*node);
    }
    if (!gpu.device_minor) gpu.device_minor = nvidia_device_minor(sys, gpu.pci_bdf);
  }
}

void fill_gpu_software_facts(const CudaReport& cuda, const NvmlReport& nvml, SoftwareStack& stack) {
  stack.cuda_built = cuda.cuda_built;
  stack.runtime_cuda_version = cuda.runtime_version;
  stack.driver_cuda_version = cuda.driver_version ? cuda.driver_version : nvml.cuda_driver_version;
  stack.cuda_error = cuda.error;
  stack.nvml_loaded = nvml.loaded;
  stack.nvml_error = nvml.error;
  if (nvml.driver_version) stack.driver_version = nvml.driver_version;
}

namespace {

bool libcuda_found() {
  void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!handle) return false;
  dlclose(handle);
  return true;
}

}  // namespace

std::vector<GpuInfo> read_gpus(const SysfsRoot& sys, const std::vector<GpuInfo>& on_bus, SoftwareStack& stack,
                               std::vector<std::string>& notes, bool ask_cuda) {
  CudaReport cuda;
  if (ask_cuda) {
    cuda = query_cuda_devices();
    if (cuda.cuda_built && !cuda.error.empty()) cuda.error = explain_cuda_error(cuda.error, libcuda_found());
  } else {
    cuda.cuda_built = PIPECHECK_HAVE_CUDA == 1;
    cuda.runtime_version = built_cuda_runtime_version();
    cuda.error = "not asked (NVML and sysfs only)";
  }
  NvmlReport nvml;
  {
    const NvmlLibrary library;
    nvml = query_nvml(library);
  }
  fill_gpu_software_facts(cuda, nvml, stack);
  std::vector<GpuInfo> gpus = merge_gpu_facts(cuda, nvml, notes);
  add_bus_gpus(gpus, on_bus);
  add_sysfs_gpu_facts(sys, gpus);
  for (const GpuInfo& gpu : gpus) {
    if (gpu.seen_by.size() != 1 || gpu.seen_by.front() != "pci") continue;
    notes.push_back("GPU " + gpu.pci_bdf + " is on the PCI bus but neither CUDA nor NVML sees it (driver bound: " +
                    (gpu.pci_driver.empty() ? std::string("none") : gpu.pci_driver) + ")");
  }
  if (const auto mismatch = stack.cuda_mismatch()) {
    notes.push_back("CUDA: " + *mismatch);
  } else if (!cuda.error.empty() && !stack.driver_version && cuda.error.find("no NVIDIA driver") == std::string::npos) {
    // "Driver version is insufficient" with no driver anywhere means: no NVIDIA driver at all.
    notes.push_back(
        "CUDA: no NVIDIA driver found (NVML not loaded, no /proc/driver/nvidia/version): "
        "treated as a machine without GPU");
  }
  return gpus;
}

}  // namespace pipecheck
