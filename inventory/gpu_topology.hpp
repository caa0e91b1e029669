// How the GPUs and network ports of a machine reach each other, the summary `nvidia-smi topo -m`
// gives: NVLink peers from NVML (nvmlDeviceGetNvLinkRemotePciInfo_v2), PCIe relations of GPU
// pairs from NVML (nvmlDeviceGetTopologyCommonAncestor) and otherwise from the PCI tree (hwloc's,
// the sysfs path where hwloc lacks a device), NUMA nodes from sysfs; and the network ports. Derivation
// is pure over a SysfsRoot and plain records, so it is tested with recorded sysfs trees.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/inventory.hpp"
#include "inventory/nvml_library.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

// The PCI path above a function, root first, the function itself left out:
// {"pci0000:00", "0000:00:01.0", "0000:15:00.0", "0000:16:00.0"} for a GPU behind a switch.
// Empty when the function is not in sysfs.
std::vector<std::string> pci_ancestors(const SysfsRoot& sys, const std::string& bdf);

// How two PCI functions reach each other through PCIe, from their ancestor paths: "PIX" both
// below the same nearest switch, "PXB" a common switch further up, "PHB" the same host bridge
// only, "NODE" different host bridges of one NUMA node, "SYS" different NUMA nodes; "" when a
// path is unknown. A switch is the upstream port two levels above what hangs below it (the
// downstream port between them is part of it), as NCCL groups them.
std::string pcie_relation(const std::vector<std::string>& a_path, const std::vector<std::string>& b_path,
                          std::optional<int> a_numa, std::optional<int> b_numa);

// NVLinks between two GPUs: the links from one straight to the other, plus, when both have
// links to NVSwitches, the smaller of their switch link counts (`nvidia-smi topo -m` shows
// NV18 for every pair of an HGX H100). nullopt when both have active links but NVML did not
// say where those of one lead.
std::optional<int> nvlinks_between(const GpuInfo& a, const GpuInfo& b);

// The network ports of the machine (see NicInfo): RDMA ports first, by device and port, then
// Ethernet interfaces with a PCI device that are not the Ethernet side of an RDMA port.
std::vector<NicInfo> read_nics(const SysfsRoot& sys);

// How NVML relates pairs of GPUs through PCIe (nvmlDeviceGetTopologyCommonAncestor, what
// `nvidia-smi topo -m` prints), keyed by the two bus ids in sysfs spelling, smaller first.
using PairRelations = std::map<std::pair<std::string, std::string>, std::string>;

// nvmlGpuTopologyLevel_t in the words of `nvidia-smi topo -m`: INTERNAL (0, two GPUs on one
// board) and SINGLE (10) "PIX", MULTIPLE (20) "PXB", HOSTBRIDGE (30) "PHB", NODE (40) "NODE",
// SYSTEM (50) "SYS"; nullopt for any other value.
std::optional<std::string> nvml_topology_word(int level);

// The matrix over the GPUs (in order, "GPU<i>") and the NICs ("NIC<i>"). A GPU pair with
// NVLink is "NV<n>" (or "NV?" when NVML did not say where the links lead), else NVML's PCIe
// relation where `nvml` has the pair, else the relation of their places in the PCI tree (the
// inventory's `pci` records, hwloc's tree; the sysfs path for a device not in them); "?" when
// nothing is known. NUMA nodes come from sysfs, else from the records.
Topology derive_topology(const SysfsRoot& sys, const std::vector<GpuInfo>& gpus, const std::vector<NicInfo>& nics,
                         const std::vector<PciDevice>& pci = {}, const PairRelations& nvml = {});

// Asks NVML how each pair of GPUs meets on PCIe. Failed calls other than "not supported" go to
// notes. Empty without NVML.
PairRelations nvml_pcie_relations(const NvmlLibrary& nvml, const std::vector<GpuInfo>& gpus,
                                  std::vector<std::string>& notes);

// Asks NVML where each GPU's active NVLinks lead and fills gpu.nvlink.remotes (and
// active_links where it was 0). Failed calls other than "not supported" go to notes. Does
// nothing without NVML.
void add_nvlink_remotes(const NvmlLibrary& nvml, std::vector<GpuInfo>& gpus, std::vector<std::string>& notes);

// The live collector: NVLink remotes and PCIe relations from a freshly loaded NVML, then
// derive_topology.
Topology read_topology(const SysfsRoot& sys, std::vector<GpuInfo>& gpus, const std::vector<NicInfo>& nics,
                       const std::vector<PciDevice>& pci, std::vector<std::string>& notes);
// The same with the sysfs path as the PCI tree (a probe that has no inventory at hand).
Topology read_topology(const SysfsRoot& sys, std::vector<GpuInfo>& gpus, const std::vector<NicInfo>& nics,
                       std::vector<std::string>& notes);

// The cell between two devices named by PCI bus id (any spelling normalize_bdf accepts), or
// nullptr when either is not in the topology.
const std::string* topology_cell(const Topology& topology, const std::string& a_bdf, const std::string& b_bdf);
// "NV18" -> 18, "NV?" -> 0 (NVLink of unknown width); nullopt for any other cell.
std::optional<int> nvlink_width(const std::string& cell);

// "GPU0-GPU1 NV18, GPU0-NIC0 PIX, ...": every pair once, for a one-line context entry.
std::string topology_pairs_text(const Topology& topology);

}  // namespace pipecheck
