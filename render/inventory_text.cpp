// Inventory renderer (plain text).
#include "render/inventory_text.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/text_escape.hpp"
#include "inventory/software_stack.hpp"
#include "ceilings/ceilings.hpp"

namespace pipecheck {

namespace {

// "NVML NVML: ...": the error already says whose it is.
std::string without_prefix(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text;
}

std::string bytes_text(std::uint64_t bytes) {
  char buffer[64];
  const double gib = static_cast<double>(bytes) / (1024.0 * 1024 * 1024);
  if (gib >= 1) {
    std::snprintf(buffer, sizeof buffer, "%.1f GiB", gib);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.0f MiB", gib * 1024);
  }
  return buffer;
}

template <typename T>
std::string or_unknown(const std::optional<T>& value, const std::string& suffix = "") {
  if (!value) return "unknown";
  std::ostringstream out;
  out << *value << suffix;
  return out.str();
}

std::string link_text(const PcieLink& link) {
  if (!link.current_gts && !link.current_width) return "unknown";
  auto gen_text = [](const std::optional<double>& gts, const std::optional<int>& width) {
    std::ostringstream out;
    out << (gts ? std::to_string(static_cast<int>(*gts * 10 + 0.5) / 10.0).substr(0, 4) : std::string("?"))
        << " GT/s x" << (width ? std::to_string(*width) : "?");
    return out.str();
  };
  std::string text = gen_text(link.current_gts, link.current_width) + " (max " +
                     gen_text(link.max_gts, link.max_width) + ")";
  if (link.downtrained()) text += "  ** trained below its max **";
  return text;
}

std::string ceiling_text(const CeilingResult& result) {
  if (result.ceiling) return result.ceiling->derivation;
  return result.unknown_reason;
}

std::string seen_by_text(const GpuInfo& gpu) {
  if (gpu.seen_by.empty()) return "";
  if (gpu.seen_by.size() == 1 && gpu.seen_by.front() == "pci") {
    return "seen on the bus only (driver: " + (gpu.pci_driver.empty() ? std::string("none bound") : gpu.pci_driver) + ")";
  }
  std::string text = "seen by";
  for (const auto& who : gpu.seen_by) {
    text += ' ';
    text += who;
  }
  return text;
}

void render_gpu(std::ostringstream& out, const GpuInfo& gpu) {
  out << "  GPU " << (gpu.cuda_index >= 0 ? std::to_string(gpu.cuda_index) : std::string("-")) << ": " << gpu.name
      << "  [" << gpu.pci_bdf << "]";
  if (const std::string seen = seen_by_text(gpu); !seen.empty()) out << "  " << seen;
  out << "\n";
  if (gpu.seen_by.size() == 1 && gpu.seen_by.front() == "pci") {
    out << "    PCIe " << link_text(gpu.pcie) << ", NUMA node " << or_unknown(gpu.numa_node) << "\n";
    return;
  }
  out << "    compute capability " << gpu.cc_major << "." << gpu.cc_minor << ", "
      << or_unknown(gpu.sm_count) << " SMs, max SM clock " << or_unknown(gpu.max_sm_clock_mhz, " MHz")
      << "\n    memory " << (gpu.memory_bytes ? bytes_text(*gpu.memory_bytes) : "unknown") << ", "
      << or_unknown(gpu.memory_bus_width_bits, "-bit") << " bus at "
      << or_unknown(gpu.max_mem_clock_mhz, " MHz") << ", L2 "
      << (gpu.l2_bytes ? bytes_text(static_cast<std::uint64_t>(*gpu.l2_bytes)) : "unknown") << "\n"
      << "    PCIe " << link_text(gpu.pcie) << ", NUMA node " << or_unknown(gpu.numa_node)
      << ", power limit " << or_unknown(gpu.power_limit_w, " W") << "\n"
      << "    NVLink: " << gpu.nvlink.active_links << " active of " << gpu.nvlink.total_links_probed
      << " probed";
  if (gpu.nvlink.version) out << ", generation " << *gpu.nvlink.version;
  out << "\n";
  const auto bf16 = gpu_compute_ceiling(gpu, Dtype::bf16);
  out << "    ceiling bf16: " << ceiling_text(bf16.preferred()) << "\n";
  out << "    ceiling memory: " << ceiling_text(gpu_memory_ceiling(gpu).preferred()) << "\n";
  out << "    ceiling PCIe: " << ceiling_text(pcie_link_ceiling(gpu.pcie)) << "\n";
}

// Column width of the topology matrix: the widest label or cell, plus two spaces.
std::size_t topology_column_width(const Topology& t) {
  std::size_t width = 4;
  for (const auto& d : t.devices) width = std::max(width, d.label.size());
  for (const auto& row : t.matrix) {
    for (const auto& cell : row) width = std::max(width, cell.size());
  }
  return width + 2;
}

std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// As `nvidia-smi topo -m` prints it, so a GPU pair on the wrong switch or socket shows beside a
// low bus bandwidth.
void render_topology(std::ostringstream& out, const Topology& t) {
  if (t.devices.size() < 2) return;
  const std::size_t width = topology_column_width(t);
  out << "Topology\n  " << padded("", width);
  for (const auto& d : t.devices) out << padded(d.label, width);
  out << "NUMA\n";
  for (std::size_t i = 0; i < t.devices.size() && i < t.matrix.size(); ++i) {
    out << "  " << padded(t.devices[i].label, width);
    for (const auto& cell : t.matrix[i]) out << padded(cell, width);
    out << or_unknown(t.devices[i].numa_node) << "  [" << t.devices[i].pci_bdf << "]\n";
  }
  out << "  NV<n>: n NVLinks (direct or through NVSwitch); PIX: one PCIe switch; PXB: several PCIe switches;\n"
      << "  PHB: through a PCIe host bridge; NODE: between host bridges of one NUMA node; SYS: across NUMA nodes\n";
}

void render_nics(std::ostringstream& out, const std::vector<NicInfo>& nics) {
  out << "Network\n";
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const NicInfo& n = nics[i];
    out << "  NIC" << i << ": " << n.name << ", " << n.kind << ", "
        << (n.rate_gbps ? or_unknown(n.rate_gbps, " Gb/s") : std::string("rate unknown")) << ", "
        << (n.active ? "active" : "down");
    if (!n.pci_bdf.empty()) out << "  [" << n.pci_bdf << "]";
    out << "\n";
  }
  if (nics.empty()) out << "  no network port with a PCI device found\n";
  out << "  ceiling across nodes: " << ceiling_text(network_ceiling(nics)) << "\n";
}

void render_software(std::ostringstream& out, const SoftwareStack& s, bool recorded) {
  out << "Software\n  kernel " << (s.kernel.empty() ? "unknown" : s.kernel) << "\n  NVIDIA driver "
      << s.driver_version.value_or("not found") << "\n";
  if (recorded) {
    out << "  CUDA, NVML, NCCL: not asked (a recorded tree; this host's libraries say nothing of it)\n";
  } else {
    out << "  CUDA: driver supports "
        << (s.driver_cuda_version ? format_cuda_version(*s.driver_cuda_version) : "unknown") << ", pipecheck built with "
        << (s.runtime_cuda_version ? format_cuda_version(*s.runtime_cuda_version)
                                   : (s.cuda_built ? "unknown" : "none (not built: no CUDA toolkit)"))
        << "\n";
    if (auto mismatch = s.cuda_mismatch()) out << "  ** " << *mismatch << " **\n";
    if (!s.cuda_error.empty()) out << "  CUDA: " << s.cuda_error << "\n";
    out << "  NCCL " << (s.nccl_version ? format_nccl_version(*s.nccl_version) : "not built") << "\n"
        << "  NVML " << (s.nvml_loaded ? "loaded" : without_prefix(s.nvml_error, "NVML: ")) << "\n";
    if (s.cuda_visible_devices) out << "  CUDA_VISIBLE_DEVICES=" << *s.cuda_visible_devices << "\n";
  }
  out << "  container: " << (s.in_container ? "yes (" + s.container_evidence + ")" : "no");
  std::string nodes;
  for (const auto& node : s.nvidia_device_nodes) nodes += " " + node;
  out << "; /dev/nvidia*:" << (nodes.empty() ? " none visible" : nodes) << "\n";
}

// 48 KiB, 1.25 MiB, 32 MiB: caches are small enough that GiB-first sizes would read 0.
std::string cache_size_text(std::uint64_t bytes) {
  char buffer[32];
  if (bytes < 1024 * 1024) {
    std::snprintf(buffer, sizeof buffer, "%.0f KiB", static_cast<double>(bytes) / 1024);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.4g MiB", static_cast<double>(bytes) / (1024 * 1024));
  }
  return buffer;
}

std::string caches_text(const std::vector<CacheLevel>& caches) {
  std::string text;
  for (const auto& c : caches) {
    if (!text.empty()) text += ", ";
    const char* type = c.type == "data" ? "d" : c.type == "instruction" ? "i" : "";
    std::ostringstream one;
    one << 'L' << c.level << type << ' ' << c.instances << " x " << cache_size_text(c.instance_bytes);
    text += one.str();
  }
  return text;
}

void render_cpu(std::ostringstream& out, const Inventory& inv) {
  const CpuInfo& cpu = inv.cpu;
  out << "CPU  " << (cpu.model.empty() ? "(model not named)" : cpu.model) << "\n  " << or_unknown(cpu.sockets)
      << " socket(s), " << or_unknown(cpu.physical_cores) << " cores, " << or_unknown(cpu.logical_cpus)
      << " logical CPUs, " << or_unknown(cpu.numa_nodes) << " NUMA node(s)";
  if (cpu.l3_bytes) out << ", L3 " << cache_size_text(static_cast<std::uint64_t>(*cpu.l3_bytes)) << " per socket";
  if (!cpu.source.empty()) out << "  (" << cpu.source << ")";
  out << "\n";
  if (!cpu.caches.empty()) out << "  caches: " << caches_text(cpu.caches) << "\n";
  out << "  this process may use " << inv.cpu_allowance.describe() << "\n";
}

void render_memory(std::ostringstream& out, const MemoryInfo& memory) {
  out << "Memory " << (memory.total_bytes ? bytes_text(*memory.total_bytes) : std::string("unknown"));
  if (!memory.total_source.empty()) out << " (" << memory.total_source << ")";
  out << ", " << memory.dimms.size() << " DIMM(s) reported\n";
  if (memory.nodes.size() > 1) {
    for (const auto& n : memory.nodes) {
      if (n.cpus == 0 && n.memory_bytes.value_or(0) == 0) continue;  // an empty node (GH200's MIG nodes)
      out << "  node " << n.os_index << ": " << (n.memory_bytes ? bytes_text(*n.memory_bytes) : std::string("size unknown"))
          << ", " << n.cpus << " CPUs";
      if (!n.gpu_bdf.empty()) out << ", memory of GPU " << n.gpu_bdf;
      out << "\n";
    }
  }
  for (const auto& d : memory.dimms) {
    out << "  " << d.locator << ": " << bytes_text(d.size_bytes) << " " << d.type << " "
        << or_unknown(d.speed_mts, " MT/s") << "\n";
  }
  out << "  ceiling: " << ceiling_text(dram_ceiling(memory)) << "\n";
}

void render_pci(std::ostringstream& out, const std::vector<PciDevice>& pci) {
  if (pci.empty()) return;
  out << "PCI tree\n";
  for (const auto& p : pci) {
    char ids[32];
    std::snprintf(ids, sizeof ids, "%04x:%04x", p.vendor_id, p.device_id);
    out << "  " << p.bdf << "  " << p.kind << " [" << ids << "]" << (p.driver.empty() ? "" : " ") << p.driver
        << ", NUMA node " << or_unknown(p.numa_node);
    if (!p.local_cpus.empty()) out << ", CPUs " << p.local_cpus;
    if (p.link.current_gts || p.link.current_width) out << ", link " << link_text(p.link);
    if (!p.upstream.empty()) {
      out << "\n    via";
      for (const auto& hop : p.upstream) out << " " << hop;
    }
    out << "  (" << p.source << ")\n";
  }
}

}  // namespace

std::string render_inventory(const Inventory& inv) {
  std::ostringstream out;
  out << "Host " << inv.hostname << "  (collected " << inv.collected_utc << ")\n";
  if (!inv.recorded_root.empty()) out << "Recorded tree " << inv.recorded_root << "\n";
  render_cpu(out, inv);
  render_memory(out, inv.memory);
  out << "Disks\n";
  for (const auto& d : inv.disks) {
    out << "  " << d.name << ": " << (d.model.empty() ? "(no model)" : d.model) << ", "
        << (d.size_bytes ? bytes_text(*d.size_bytes) : std::string("size unknown")) << ", " << to_string(d.kind) << " via " << d.transport
        << (d.rotational ? ", rotational=1" : "");
    if (d.kind == DiskKind::nvme) out << ", PCIe " << link_text(d.pcie);
    if (d.sata_gbps) out << ", SATA link " << *d.sata_gbps << " Gb/s";
    out << "\n    ceiling: " << ceiling_text(disk_read_ceiling(d)) << "\n";
  }
  if (inv.disks.empty()) out << "  none found\n";
  out << "GPUs\n";
  for (const auto& gpu : inv.gpus) render_gpu(out, gpu);
  if (inv.gpus.empty()) out << "  none found\n";
  render_pci(out, inv.pci);
  render_topology(out, inv.topology);
  render_nics(out, inv.nics);
  render_software(out, inv.software, !inv.recorded_root.empty());
  if (!inv.notes.empty()) {
    out << "Notes\n";
    for (const auto& note : inv.notes) out << "  - " << note << "\n";
  }
  // Host names, models and versions come from sysfs, DMI or a recorded tree: any bytes. No colour
  // here, so the whole text goes through the one policy (core/text_escape.hpp), lines kept.
  return printable_text(out.str(), true);
}

}  // namespace pipecheck
