// The ceilings model: turns inventory facts and the tables in gpu_specs into ceilings, each with
// the arithmetic that produced it, or the precise reason no ceiling can be known.
#include "ceilings/ceilings.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "inventory/gpu_topology.hpp"
#include "inventory/pcie_link.hpp"
#include "ceilings/gpu_specs.hpp"

namespace pipecheck {

namespace {

// Fixed decimals, then trailing zeros dropped down to one decimal: 15.75, 31.5, 4.0.
std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string text = buffer;
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0' && text[text.size() - 2] != '.') text.pop_back();
  return text;
}

// TFLOP/s and TOPS with one decimal (two below 10); GB/s with two below 20, else one.
std::string format_tflops(double value) { return fixed(value, value < 10 ? 2 : 1); }
std::string format_gbps(double value) {
  if (value < 20) return fixed(value, 2);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}
// 2.5, 5, 16: link speeds and clocks without noise.
std::string format_plain(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

const char* dtype_display(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp64: return "FP64";
    case Dtype::fp32: return "FP32";
    case Dtype::tf32: return "TF32";
    case Dtype::fp16: return "FP16";
    case Dtype::bf16: return "BF16";
    case Dtype::fp8: return "FP8";
    case Dtype::int8: return "INT8";
  }
  return "?";
}

const char* compute_unit(Dtype dtype) { return dtype == Dtype::int8 ? "TOPS" : "TFLOP/s"; }
const char* per_clk_unit(Dtype dtype) { return dtype == Dtype::int8 ? "OP/clk/SM" : "FLOP/clk/SM"; }

// A100 and Hopper run DGEMM on tensor cores (DMMA): the FP64 ceiling is that rate.
bool fp64_on_tensor_cores(const GpuInfo& gpu) {
  return (gpu.cc_major == 8 && gpu.cc_minor == 0) || gpu.cc_major == 9;
}

bool accumulate_matters(Dtype dtype) {
  return dtype == Dtype::fp16 || dtype == Dtype::bf16 || dtype == Dtype::fp8;
}

CeilingResult theoretical_compute(const GpuInfo& gpu, Dtype dtype) {
  const bool geforce = is_geforce_name(gpu.name);
  const GemmRateAnswer rate = gemm_per_clk_sm(gpu.cc_major, gpu.cc_minor, dtype, geforce);
  if (!rate.per_clk_sm) return CeilingResult::unknown(rate.unknown_reason);
  if (!gpu.sm_count || !gpu.max_sm_clock_mhz) {
    std::string missing;
    if (!gpu.sm_count) missing = "SM count";
    if (!gpu.max_sm_clock_mhz) missing += missing.empty() ? "max SM clock" : " and max SM clock";
    return CeilingResult::unknown("unknown: " + missing + " not reported for GPU " + gpu.name);
  }
  const double value =
      double(*gpu.sm_count) * double(*gpu.max_sm_clock_mhz) * 1e6 * *rate.per_clk_sm / 1e12;
  std::string notes = rate.row_label + ", " + to_string(dtype) + " dense";
  if (dtype == Dtype::fp64 && fp64_on_tensor_cores(gpu)) notes += " tensor core";
  if (accumulate_matters(dtype)) notes += ", FP32 accumulate";
  if (rate.geforce_rate) {
    notes += ", GeForce rate (half the professional boards' FP32-accumulate tensor rate), by name \"" +
             gpu.name + "\"";
  }
  notes += ", max SM clock";
  Ceiling ceiling;
  ceiling.value = value;
  ceiling.unit = compute_unit(dtype);
  ceiling.basis = "theoretical";
  ceiling.derivation = format_tflops(value) + " " + ceiling.unit + " = " +
                       std::to_string(*gpu.sm_count) + " SMs x " +
                       std::to_string(*gpu.max_sm_clock_mhz) + " MHz x " +
                       std::to_string(*rate.per_clk_sm) + " " + per_clk_unit(dtype) + " (" + notes +
                       ")";
  return CeilingResult::known(std::move(ceiling));
}

// The spec sheet's figures hold for the SKU's SM count; a MIG slice or a cut-down board does not
// reach them.
std::optional<std::string> vendor_mismatch(const GpuInfo& gpu, const VendorSpec& spec) {
  if (gpu.sm_count && *gpu.sm_count != spec.sm_count) {
    return "no vendor spec: " + std::string(spec.sku) + " sheet is for " +
           std::to_string(spec.sm_count) + " SMs, this device reports " +
           std::to_string(*gpu.sm_count) + " (MIG slice or another SKU)";
  }
  return std::nullopt;
}

CeilingResult vendor_compute(const GpuInfo& gpu, Dtype dtype) {
  const VendorSpec* spec = match_vendor_spec(gpu.name);
  if (!spec) return CeilingResult::unknown("no vendor spec for \"" + gpu.name + "\" (SKU not in the table)");
  if (auto why = vendor_mismatch(gpu, *spec)) return CeilingResult::unknown(*why);
  const double value = vendor_figure(*spec, dtype);
  if (value <= 0) {
    return CeilingResult::unknown(std::string("no vendor spec: the ") + spec->sku +
                                  " sheet gives no dense " + dtype_display(dtype) + " figure");
  }
  std::string notes = std::string(spec->sku) + ", dense " + dtype_display(dtype);
  if (dtype == Dtype::fp64 && fp64_on_tensor_cores(gpu)) notes += " tensor core";
  if (accumulate_matters(dtype) && is_geforce_name(gpu.name)) notes += " with FP32 accumulate";
  if (spec->tensor_clock_mhz > 0 && dtype != Dtype::fp32 && dtype != Dtype::fp64) {
    notes += ", at " + std::to_string(spec->tensor_clock_mhz) + " MHz boost";
  }
  notes += "; " + std::string(spec->source);
  Ceiling ceiling;
  ceiling.value = value;
  ceiling.unit = compute_unit(dtype);
  ceiling.basis = "vendor spec";
  ceiling.derivation = format_tflops(value) + " " + ceiling.unit + " vendor spec (" + notes + ")";
  return CeilingResult::known(std::move(ceiling));
}

// Payload bits per transferred bit of a PCIe speed: 8b/10b (Gen1-2), 128b/130b (Gen3-5), and
// for Gen6 FLIT mode 236 of every 256 bytes: a flit carries 236 TLP bytes, 6 DLP bytes, 8 CRC
// and 6 FEC bytes (the PCIe 6.0 FLIT layout; REFERENCE.md).
struct Encoding {
  int payload;
  int total;
  const char* note;
};
std::optional<Encoding> pcie_encoding(double gts) {
  const auto generation = pcie_generation(gts);
  if (!generation) return std::nullopt;
  if (*generation <= 2) return Encoding{8, 10, ""};
  if (*generation <= 5) return Encoding{128, 130, ""};
  return Encoding{236, 256, ", Gen6 FLIT mode: 236/256 TLP bytes per flit"};
}

}  // namespace

const CeilingResult& ComputeCeilings::preferred() const {
  return vendor.ceiling ? vendor : theoretical;
}

ComputeCeilings gpu_compute_ceiling(const GpuInfo& gpu, Dtype dtype) {
  return {theoretical_compute(gpu, dtype), vendor_compute(gpu, dtype)};
}

ComputeCeilings gpu_memory_ceiling(const GpuInfo& gpu) {
  ComputeCeilings result;
  if (!gpu.max_mem_clock_mhz || !gpu.memory_bus_width_bits || *gpu.memory_bus_width_bits <= 0) {
    std::string missing;
    if (!gpu.max_mem_clock_mhz) missing = "memory clock";
    if (!gpu.memory_bus_width_bits || *gpu.memory_bus_width_bits <= 0) {
      missing += missing.empty() ? "memory bus width" : " and memory bus width";
    }
    result.theoretical =
        CeilingResult::unknown("unknown: " + missing + " not reported for GPU " + gpu.name);
  } else {
    // Double data rate: two transfers per memory clock on every bus bit.
    const double value = 2.0 * *gpu.max_mem_clock_mhz * 1e6 * *gpu.memory_bus_width_bits / 8 / 1e9;
    Ceiling ceiling{value, "GB/s", "theoretical",
                    format_gbps(value) + " GB/s = 2 x " + std::to_string(*gpu.max_mem_clock_mhz) +
                        " MHz x " + std::to_string(*gpu.memory_bus_width_bits) +
                        " bit / 8 (memory clock, double data rate)"};
    result.theoretical = CeilingResult::known(std::move(ceiling));
  }

  const VendorSpec* spec = match_vendor_spec(gpu.name);
  if (!spec) {
    result.vendor = CeilingResult::unknown("no vendor spec for \"" + gpu.name + "\" (SKU not in the table)");
  } else if (auto why = vendor_mismatch(gpu, *spec)) {
    result.vendor = CeilingResult::unknown(*why);
  } else {
    Ceiling ceiling{spec->memory_gbps, "GB/s", "vendor spec",
                    format_gbps(spec->memory_gbps) + " GB/s vendor spec (" + spec->sku + ", " +
                        spec->memory_kind + "; " + spec->source + ")"};
    result.vendor = CeilingResult::known(std::move(ceiling));
  }
  return result;
}

CeilingResult pcie_link_ceiling(const PcieLink& link) {
  if (!link.current_gts) return CeilingResult::unknown("unknown: PCIe link speed not reported");
  if (!link.current_width || *link.current_width <= 0) {
    return CeilingResult::unknown("unknown: PCIe link width not reported");
  }
  const auto encoding = pcie_encoding(*link.current_gts);
  if (!encoding) {
    return CeilingResult::unknown("unknown: PCIe link speed " + format_plain(*link.current_gts) +
                                  " GT/s is not a PCIe generation's rate");
  }
  const double value =
      *link.current_gts * *link.current_width * encoding->payload / encoding->total / 8;
  std::string derivation = format_gbps(value) + " GB/s = " + format_plain(*link.current_gts) +
                           " GT/s x" + std::to_string(*link.current_width) + " x " +
                           std::to_string(encoding->payload) + "/" +
                           std::to_string(encoding->total) + " / 8 per direction (current link" +
                           encoding->note;
  if (link.downtrained()) {
    derivation += ", link trained below its max of ";
    derivation += link.max_gts ? format_plain(*link.max_gts) + " GT/s" : "? GT/s";
    derivation += link.max_width ? " x" + std::to_string(*link.max_width) : " x?";
  }
  derivation += ")";
  return CeilingResult::known(Ceiling{value, "GB/s", "link", std::move(derivation)});
}

CeilingResult nvlink_ceiling(const GpuInfo& gpu) {
  if (gpu.nvlink.active_links <= 0) return CeilingResult::unknown("no active NVLink");
  std::optional<int> version = gpu.nvlink.version;
  // The inventory keeps the compute capability's generation where NVML's code disagreed.
  const char* version_source = gpu.nvlink.version_source == "compute capability" ? "from compute capability" : "NVML";
  if (!version) {
    version = nvlink_version_of_cc(gpu.cc_major, gpu.cc_minor);
    version_source = "from compute capability";
  }
  if (!version) {
    return CeilingResult::unknown("unknown: NVLink generation not reported and not known for " +
                                  sm_label(gpu.cc_major, gpu.cc_minor));
  }
  const NvlinkGeneration* generation = find_nvlink_rate(*version, gpu.cc_major, gpu.cc_minor);
  if (!generation) {
    return CeilingResult::unknown("unknown: NVLink version " + std::to_string(*version) +
                                  " not in the per-link rate table");
  }
  const double value = gpu.nvlink.active_links * generation->gbps_per_link_per_direction;
  std::string derivation = format_gbps(value) + " GB/s = " + std::to_string(gpu.nvlink.active_links) +
                           " active links x " + format_plain(generation->gbps_per_link_per_direction) +
                           " GB/s per link per direction (NVLink" + std::to_string(*version) +
                           (generation != find_nvlink_generation(*version) ? std::string(" of ") + generation->gpu : "") +
                           ", generation " + version_source;
  if (version_source[0] == 'f') derivation += " " + sm_label(gpu.cc_major, gpu.cc_minor);
  derivation += ")";
  return CeilingResult::known(Ceiling{value, "GB/s", "link", std::move(derivation)});
}

namespace {

bool selected(const NicInfo& nic, bool is_rdma, const NcclPortSelection& selection) {
  if (!is_rdma) return nccl_list_selects(selection.socket_ifname, nic.name, -1);
  if (selection.ib_disabled) return false;
  const auto colon = nic.name.rfind(':');
  if (colon == std::string::npos) return nccl_list_selects(selection.ib_hca, nic.name, -1);
  return nccl_list_selects(selection.ib_hca, nic.name.substr(0, colon), std::atoi(nic.name.c_str() + colon + 1));
}

// The ports a collective would use: RDMA ones when there are (NCCL prefers them), else Ethernet;
// of those, the ones the run's NCCL variables select.
std::vector<const NicInfo*> usable_ports(const std::vector<NicInfo>& nics, const NcclPortSelection& selection,
                                         bool& rdma) {
  std::vector<const NicInfo*> ports;
  for (const bool want_rdma : {true, false}) {
    for (const NicInfo& nic : nics) {
      const bool is_rdma = nic.kind == "infiniband" || nic.kind == "roce";
      if (is_rdma == want_rdma && nic.active && nic.rate_gbps && *nic.rate_gbps > 0 &&
          selected(nic, is_rdma, selection)) {
        ports.push_back(&nic);
      }
    }
    rdma = want_rdma;
    if (!ports.empty()) break;
  }
  return ports;
}

// " (NCCL_IB_HCA=mlx5_0)": the variables that chose the ports, for the derivation.
std::string selection_text(const NcclPortSelection& selection) {
  std::string text;
  auto add = [&text](const std::string& item) {
    text += text.empty() ? "" : " ";
    text += item;
  };
  if (selection.ib_disabled) add("NCCL_IB_DISABLE=1");
  if (!selection.ib_hca.empty()) add("NCCL_IB_HCA=" + selection.ib_hca);
  if (!selection.socket_ifname.empty()) add("NCCL_SOCKET_IFNAME=" + selection.socket_ifname);
  return text;
}

std::string gpu_name_of(const GpuInfo& gpu) {
  return gpu.cuda_index >= 0 ? "GPU " + std::to_string(gpu.cuda_index) : gpu.pci_bdf;
}

// Whether two GPUs share NVLink; `cell` gets their topology cell ("SYS") when there is one.
bool share_nvlink(const GpuInfo& a, const GpuInfo& b, const Topology& topology, std::string& cell) {
  if (const std::string* found = topology_cell(topology, a.pci_bdf, b.pci_bdf)) {
    cell = *found;
    return nvlink_width(*found).has_value();
  }
  cell.clear();
  return a.nvlink.active_links > 0 && b.nvlink.active_links > 0;
}

// "" when every pair of the GPUs shares NVLink, else the first pair that does not.
std::string pair_without_nvlink(const std::vector<const GpuInfo*>& gpus, const Topology& topology) {
  if (gpus.size() == 1 && gpus.front()->nvlink.active_links <= 0) return "no active NVLink";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      std::string cell;
      if (share_nvlink(*gpus[i], *gpus[j], topology, cell)) continue;
      std::string why = gpu_name_of(*gpus[i]) + " and " + gpu_name_of(*gpus[j]) + " share no NVLink";
      if (!cell.empty()) why += " (" + cell + ")";
      return why;
    }
  }
  return "";
}

// The slowest GPU's ceiling by `one`, or the last reason none was known.
template <typename Rule>
CeilingResult slowest(const std::vector<const GpuInfo*>& gpus, Rule one) {
  std::optional<CeilingResult> lowest;
  std::string unknown;
  for (const GpuInfo* gpu : gpus) {
    CeilingResult result = one(*gpu);
    if (!result.ceiling) {
      unknown = result.unknown_reason;
    } else if (!lowest || result.ceiling->value < lowest->ceiling->value) {
      lowest = std::move(result);
    }
  }
  if (!lowest) return CeilingResult::unknown(unknown.empty() ? "unknown: no GPU link figure" : unknown);
  return *lowest;
}

CeilingResult intra_node_ceiling(const std::vector<const GpuInfo*>& gpus, const Topology& topology) {
  const std::string missing = pair_without_nvlink(gpus, topology);
  CeilingResult result = missing.empty()
                             ? slowest(gpus, [](const GpuInfo& g) { return nvlink_ceiling(g); })
                             : slowest(gpus, [](const GpuInfo& g) { return pcie_link_ceiling(g.pcie); });
  if (result.ceiling) {
    const std::string bound = missing.empty() ? "NVLink bounds: " : "PCIe bounds (" + missing + "): ";
    result.ceiling->derivation = bound + result.ceiling->derivation;
  }
  return result;
}

}  // namespace

CeilingResult network_ceiling(const std::vector<NicInfo>& nics, const NcclPortSelection& selection) {
  bool rdma = false;
  const std::vector<const NicInfo*> ports = usable_ports(nics, selection, rdma);
  if (ports.empty()) {
    std::string reason = "unknown: no active network port with a known rate";
    if (selection.any()) reason += " selected by " + selection_text(selection);
    return CeilingResult::unknown(reason);
  }
  double gbits = 0;
  bool same_rate = true;
  for (const NicInfo* port : ports) {
    gbits += *port->rate_gbps;
    same_rate = same_rate && *port->rate_gbps == *ports.front()->rate_gbps;
  }
  const double value = gbits / 8;
  std::string derivation = format_gbps(value) + " GB/s = ";
  derivation += same_rate ? std::to_string(ports.size()) + " x " + format_plain(*ports.front()->rate_gbps) + " Gb/s"
                          : format_plain(gbits) + " Gb/s over " + std::to_string(ports.size()) + " ports";
  derivation += " / 8 per direction (active ";
  derivation += rdma ? "RDMA" : "Ethernet";
  derivation += ports.size() == 1 ? " port " : " ports ";
  for (std::size_t i = 0; i < ports.size(); ++i) {
    if (i > 0) derivation += ',';
    derivation += ports[i]->name;
  }
  if (selection.any()) derivation += " selected by " + selection_text(selection);
  derivation += ", sysfs)";
  return CeilingResult::known(Ceiling{value, "GB/s", "link", std::move(derivation)});
}

CeilingResult collective_ceiling(const std::vector<const GpuInfo*>& gpus, const Topology& topology,
                                 const std::vector<NicInfo>& nics, int nodes,
                                 const NcclPortSelection& selection) {
  if (gpus.empty()) return CeilingResult::unknown("unknown: no GPU of the job is in the inventory");
  CeilingResult intra = intra_node_ceiling(gpus, topology);
  if (nodes <= 1) return intra;
  CeilingResult network = network_ceiling(nics, selection);
  if (!network.ceiling) {
    if (intra.ceiling) {
      intra.ceiling->derivation += "; across " + std::to_string(nodes) +
                                   " nodes the network may bound lower, but it has no known ceiling (" +
                                   network.unknown_reason + ")";
    }
    return intra;
  }
  if (intra.ceiling && intra.ceiling->value <= network.ceiling->value) return intra;
  network.ceiling->derivation = "Network bounds (" + std::to_string(nodes) + " nodes): " + network.ceiling->derivation;
  return network;
}

CeilingResult disk_read_ceiling(const BlockDevice& disk) {
  switch (disk.kind) {
    case DiskKind::nvme: {
      CeilingResult link = pcie_link_ceiling(disk.pcie);
      if (!link.ceiling) return CeilingResult::unknown("NVMe link: " + link.unknown_reason);
      link.ceiling->derivation = "NVMe link: " + link.ceiling->derivation;
      return link;
    }
    case DiskKind::sata_ssd:
    case DiskKind::sata_hdd: {
      if (!disk.sata_gbps || *disk.sata_gbps <= 0) {
        return CeilingResult::unknown("unknown: SATA link speed not reported for " + disk.name);
      }
      // 8b/10b line code: 8 payload bits of every 10 on the wire.
      const double value = *disk.sata_gbps * 8 / 10 / 8;
      std::string derivation = format_gbps(value) + " GB/s = " + fixed(*disk.sata_gbps, 1) +
                               " Gb/s x 8/10 / 8 (SATA link, 8b/10b)";
      if (disk.kind == DiskKind::sata_hdd) {
        derivation += "; link ceiling only: a spinning disk's media is far slower (~0.25 GB/s "
                      "sequential on outer tracks)";
      }
      return CeilingResult::known(Ceiling{value, "GB/s", "link", std::move(derivation)});
    }
    case DiskKind::virtual_disk: return CeilingResult::unknown("no ceiling: virtual disk");
    case DiskKind::network: return CeilingResult::unknown("no ceiling: network block device");
    case DiskKind::scsi:
      return CeilingResult::unknown("no ceiling: SCSI/SAS link speed not in the inventory");
    case DiskKind::unknown: break;
  }
  return CeilingResult::unknown("no ceiling: disk kind unknown");
}

CeilingResult dram_ceiling(const MemoryInfo& memory) {
  // Channels are never inferred from the DIMM count: populated slots say nothing about how many
  // channels the controller drives.
  if (!memory.memory_channels || *memory.memory_channels <= 0) {
    return CeilingResult::unknown("unknown: memory channel count not reported by the platform");
  }
  if (memory.dimms.empty()) return CeilingResult::unknown("no DIMM speed in SMBIOS (no DIMM records)");
  int speed = 0;
  int width = 0;
  for (const DimmInfo& dimm : memory.dimms) {
    if (!dimm.speed_mts || *dimm.speed_mts <= 0) return CeilingResult::unknown("no DIMM speed in SMBIOS");
    if (!dimm.data_width_bits || *dimm.data_width_bits <= 0) {
      return CeilingResult::unknown("no DIMM data width in SMBIOS");
    }
    // The slowest and narrowest module sets the pace of the channels.
    speed = speed == 0 ? *dimm.speed_mts : std::min(speed, *dimm.speed_mts);
    width = width == 0 ? *dimm.data_width_bits : std::min(width, *dimm.data_width_bits);
  }
  const int channels = *memory.memory_channels;
  const double value = double(channels) * speed * 1e6 * (width / 8.0) / 1e9;
  const std::string derivation = format_gbps(value) + " GB/s = " + std::to_string(channels) +
                                 " channels x " + std::to_string(speed) + " MT/s x " +
                                 format_plain(width / 8.0) + " bytes (" + std::to_string(width) +
                                 "-bit DIMM data width; populated channels from EDAC, configured speed from SMBIOS)";
  return CeilingResult::known(Ceiling{value, "GB/s", "theoretical", derivation});
}

}  // namespace pipecheck
