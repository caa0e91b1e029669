// The hardware and software inventory of one machine: plain records, filled by the
// collectors in inventory/ (topology through hwloc, block devices, GPUs, software stack) and read by
// the ceilings model and the renderers. Unknown facts stay empty (std::optional), never guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/cpu_allowance.hpp"
#include "core/outcome.hpp"

namespace pipecheck {

// A PCIe link as sysfs or NVML reports it.
struct PcieLink {
  std::optional<double> current_gts;  // GT/s per lane, e.g. 16.0
  std::optional<int> current_width;   // lanes
  std::optional<double> max_gts;
  std::optional<int> max_width;
  // True when the link trained below its maximum speed or width.
  bool downtrained() const;
};

// One level of cache as the machine has it: "L3, unified, 2 x 32 MiB per package".
struct CacheLevel {
  int level = 0;                         // 1, 2, 3, 4
  std::string type;                      // "data", "instruction" or "unified"
  std::uint64_t instance_bytes = 0;      // one instance (one cache as the CPUs sharing it see it)
  int instances = 0;                     // on the whole machine
  std::uint64_t per_package_bytes = 0;   // the instances of the first package together
};

// The machine's processors. Counts the kernel or hwloc cannot give stay empty, never guessed
// (a package id of -1 is no package, so no socket count comes from it).
struct CpuInfo {
  std::string model;                 // "AMD EPYC 9654 96-Core Processor", "POWER9 (architected)..."
  std::optional<int> sockets;        // packages
  std::optional<int> physical_cores;
  std::optional<int> logical_cpus;   // online processors (PUs)
  std::optional<int> numa_nodes;     // NUMA nodes with CPUs; memory-only nodes are in memory.nodes
  std::optional<int> l3_bytes;       // the L3 of one package (all its instances together)
  std::vector<CacheLevel> caches;    // every level, L1d/L1i apart
  std::string source;                // "hwloc 2.9.0" or "sysfs" (where hwloc could not read it)
};

// One populated memory module, from SMBIOS type 17 where readable.
struct DimmInfo {
  std::string locator;               // "DIMM_A1"
  std::uint64_t size_bytes = 0;
  std::optional<int> speed_mts;      // configured speed, MT/s
  std::optional<int> data_width_bits;
  std::string type;                  // "DDR5"
};

// One NUMA node. A node without CPUs holds memory of another kind: GPU memory the driver
// exposes as a node (GH200, POWER9 with NVLink GPUs), a CXL expander, HBM in flat mode, PMEM.
struct NumaNode {
  int os_index = 0;
  int cpus = 0;                               // logical CPUs local to it (0: CPU-less)
  std::optional<std::uint64_t> memory_bytes;  // node<N>/meminfo MemTotal
  std::string gpu_bdf;                        // whose GPU memory it is, where the driver says
};

struct MemoryInfo {
  // Host memory: the NUMA nodes with CPUs, else /proc/meminfo MemTotal; empty when neither
  // is readable. CPU-less nodes (GPU memory above all) are never counted in it.
  std::optional<std::uint64_t> total_bytes;
  std::string total_source;          // "NUMA nodes with CPUs" or "/proc/meminfo MemTotal"
  std::vector<NumaNode> nodes;       // every NUMA node, CPU-less ones included
  std::vector<DimmInfo> dimms;       // empty when SMBIOS is not readable
  std::optional<int> memory_channels;  // only where the platform tells it; never inferred
};

enum class DiskKind { nvme, sata_ssd, sata_hdd, scsi, virtual_disk, network, unknown };
const char* to_string(DiskKind kind);

struct BlockDevice {
  std::string name;                  // "nvme0n1", "sda", "vda"
  std::string model;
  std::optional<std::uint64_t> size_bytes;  // unknown when sysfs's size is missing or not a count
  bool rotational = false;           // as sysfs says; virtio says 1 too
  DiskKind kind = DiskKind::unknown;
  std::string transport;             // "nvme", "sata", "virtio", "scsi", ...
  std::string pci_bdf;               // NVMe / virtio controller function, when known
  PcieLink pcie;                     // NVMe link
  std::optional<double> sata_gbps;   // SATA link speed, e.g. 6.0
  int logical_block_size = 512;
  std::optional<int> numa_node;
  std::string vendor;                // SCSI/ATA inquiry vendor ("ATA", "QEMU"), raw as sysfs says
  std::vector<std::string> members;  // md/dm: the block devices underneath (sysfs slaves/)
};

// Where some of a GPU's NVLinks lead: another GPU or an NVSwitch, by PCI bus id
// (nvmlDeviceGetNvLinkRemotePciInfo_v2), and how many active links go there.
struct NvlinkRemote {
  std::string pci_bdf;  // "0000:18:00.0", sysfs spelling
  int links = 0;
  bool nvswitch = false;  // an NVSwitch (every GPU linked to the switches reaches every other)
};

struct NvlinkInfo {
  int active_links = 0;
  int total_links_probed = 0;
  std::optional<int> version;        // NVLink generation, where known
  std::string version_source;        // "NVML", or "compute capability" where NVML's code disagreed
  std::optional<int> nvml_version_code;  // nvmlDeviceGetNvLinkVersion's raw code, to check version
  std::vector<NvlinkRemote> remotes;  // empty when NVML cannot say which device a link reaches
};

struct GpuInfo {
  int cuda_index = -1;               // -1 when seen by NVML only
  std::string name;
  std::string uuid;
  std::string pci_bdf;               // "0000:17:00.0", the join key between CUDA and NVML
  // Who saw it: "pci" (on the bus, in sysfs), "cuda", "nvml". A GPU only "pci" saw is on the
  // bus but not usable: no driver, the wrong driver, or fallen off the bus.
  std::vector<std::string> seen_by;
  std::string pci_driver;            // the kernel driver bound to it ("nvidia", "vfio-pci"), "" none
  std::optional<unsigned> pci_device_id;  // PCI device id (0x2330 for H100 SXM5)
  std::optional<int> device_minor;   // N of /dev/nvidiaN (/proc/driver/nvidia/gpus/<bus id>/information)
  int cc_major = 0;
  int cc_minor = 0;
  std::optional<int> sm_count;
  std::optional<int> max_sm_clock_mhz;
  std::optional<int> max_mem_clock_mhz;
  std::optional<int> memory_bus_width_bits;
  std::optional<std::uint64_t> memory_bytes;
  std::optional<int> l2_bytes;
  PcieLink pcie;
  std::string pcie_source;           // "sysfs" (narrowest hop to the root port) or "nvml"
  std::optional<int> numa_node;
  std::optional<double> power_limit_w;
  NvlinkInfo nvlink;
};

struct SoftwareStack {
  std::string kernel;                          // uname -r
  std::optional<std::string> driver_version;   // "580.65.06"
  std::optional<int> driver_cuda_version;      // 13000 = 13.0 (cudaDriverGetVersion)
  std::optional<int> runtime_cuda_version;     // the runtime pipecheck was built with
  std::optional<int> nccl_version;             // 22703 = 2.27.3
  bool cuda_built = false;
  bool nccl_built = false;
  bool nvml_loaded = false;
  std::string nvml_error;                      // why NVML was not loaded
  std::string cuda_error;                      // why CUDA saw no device
  bool in_container = false;
  std::string container_evidence;              // "/.dockerenv", "cgroup: docker", ...
  std::vector<std::string> nvidia_device_nodes;  // /dev/nvidia0, /dev/nvidiactl, ...
  std::optional<std::string> cuda_visible_devices;  // the environment's CUDA_VISIBLE_DEVICES, if set
  // "driver supports CUDA 12.4 but pipecheck was built with 13.0" when the driver is older.
  std::optional<std::string> cuda_mismatch() const;
};

// A network port a multi-node job can use: an RDMA port from /sys/class/infiniband/DEV/ports/N
// (InfiniBand, or RoCE on Ethernet), or an Ethernet interface from /sys/class/net/IF without
// RDMA. Virtual interfaces (no PCI device behind them: lo, bridges, veth) are left out.
struct NicInfo {
  std::string name;                  // "mlx5_0:1" (device:port) or "eth0"
  std::string kind;                  // "infiniband", "roce" or "ethernet"
  std::optional<double> rate_gbps;   // link rate in Gb/s; empty when the port does not say
  bool active = false;               // port ACTIVE / interface up
  std::string pci_bdf;               // the PCI function behind it
  std::optional<int> numa_node;
};

// How each pair of GPUs and NICs reaches each other, in the words of `nvidia-smi topo -m`:
// "X" itself, "NV<n>" n NVLinks (direct or through NVSwitch), "PIX" one PCIe switch, "PXB"
// several PCIe switches without the host bridge, "PHB" through a PCIe host bridge, "NODE"
// between host bridges of one NUMA node, "SYS" across NUMA nodes.
struct TopologyDevice {
  std::string label;                 // "GPU0", "NIC1"
  std::string pci_bdf;
  std::optional<int> numa_node;
};
struct Topology {
  std::vector<TopologyDevice> devices;           // the GPUs in inventory order, then the NICs
  std::vector<std::vector<std::string>> matrix;  // matrix[i][j]: how devices i and j connect
};

// A PCI function that matters to a training machine (GPU, network, NVMe or other storage), where it
// sits in the PCI tree and which CPUs and memory are near it.
struct PciDevice {
  std::string bdf;                    // "0000:17:00.0"; 32-bit domains keep theirs ("10000:01:00.0")
  unsigned vendor_id = 0;
  unsigned device_id = 0;
  unsigned class_code = 0;            // 24 bits: 0x030200 3D controller, 0x010802 NVMe, 0x020000 Ethernet
  std::string kind;                   // gpu, nic, nvme, storage (hwloc_topology.hpp)
  std::string driver;                 // bound kernel driver, "" when none
  std::optional<int> numa_node;
  std::string local_cpus;             // the CPUs near it, as a list ("0-31,64-95")
  PcieLink link;                      // its own link
  std::optional<double> link_gbps;    // hwloc's link bandwidth (GB/s), where it read one
  // The bridges above it, host bridge first: the PCIe switches and root port it hangs off.
  std::vector<std::string> upstream;
  std::string source;                 // "hwloc", or "sysfs" where hwloc does not list it
};

struct Inventory {
  int schema_version = kInventorySchemaVersion;
  // Empty for this machine; the tree's folder for `--sysfs-root` (a recorded machine: nothing of
  // the live host is in the inventory then, and neither CUDA nor NVML is asked).
  std::string recorded_root;
  std::string hostname;
  std::string collected_utc;         // ISO 8601
  CpuInfo cpu;
  CpuAllowance cpu_allowance;        // what this process may use of the CPUs
  MemoryInfo memory;
  std::vector<BlockDevice> disks;
  std::vector<GpuInfo> gpus;
  SoftwareStack software;
  std::vector<NicInfo> nics;
  std::vector<PciDevice> pci;        // GPUs, NICs and storage functions with their place in the tree
  Topology topology;
  std::vector<std::string> notes;    // why something is missing ("NVML: not loaded: ...")
};

}  // namespace pipecheck
