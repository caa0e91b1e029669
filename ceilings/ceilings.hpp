// The ceilings model: from the inventory, the theoretical ceiling of each stage with its
// derivation as text. The one place that knows ceilings (DESIGN principle 1 and 3).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "core/measurement.hpp"
#include "ceilings/dtype.hpp"
#include "ceilings/nccl_port_selection.hpp"

namespace pipecheck {

// Dense GEMM ceiling of a GPU for a dtype.
struct ComputeCeilings {
  CeilingResult theoretical;  // SMs x max SM clock x FLOP/clk/SM for the compute capability
  CeilingResult vendor;       // the vendor's spec sheet figure for a known SKU
  // The one a percentage is taken against: vendor spec when known, else theoretical.
  const CeilingResult& preferred() const;
};
ComputeCeilings gpu_compute_ceiling(const GpuInfo& gpu, Dtype dtype);

// HBM/GDDR bandwidth: 2 x memory clock x bus width / 8 (GB/s), plus vendor figure when known.
ComputeCeilings gpu_memory_ceiling(const GpuInfo& gpu);

// Per direction GB/s of a PCIe link (current speed and width): GT/s x lanes x encoding / 8.
CeilingResult pcie_link_ceiling(const PcieLink& link);
// NVLink per direction GB/s: active links x per-link rate of the generation.
CeilingResult nvlink_ceiling(const GpuInfo& gpu);
// The network a collective across nodes crosses, per direction in GB/s: this node's active
// RDMA ports (InfiniBand, RoCE) summed, else its active Ethernet ports. A ring crosses each
// node's network with every rank's share of the data, so across nodes bus bandwidth is bounded
// by the node's whole network, not one GPU's share of it. `selection`: only the ports the run's
// NCCL variables let NCCL use (NCCL_IB_DISABLE, NCCL_IB_HCA, NCCL_SOCKET_IFNAME).
CeilingResult network_ceiling(const std::vector<NicInfo>& nics, const NcclPortSelection& selection = {});
// The bus-bandwidth ceiling of a collective over `gpus` (the job's GPUs on this node): the
// slowest GPU's NVLink when every pair of them shares NVLink (direct or through NVSwitch, from
// the topology; without one, every GPU having active links), else the slowest GPU's PCIe link;
// across nodes (nodes > 1) the network too, and the lowest bounds. The derivation begins with
// what bounds: "NVLink bounds: ", "PCIe bounds (...): ", "Network bounds: ".
CeilingResult collective_ceiling(const std::vector<const GpuInfo*>& gpus, const Topology& topology,
                                 const std::vector<NicInfo>& nics, int nodes,
                                 const NcclPortSelection& selection = {});
// Storage read ceiling: NVMe from its PCIe link, SATA from link speed (8b/10b), else unknown
// with the reason ("no ceiling: virtual disk").
CeilingResult disk_read_ceiling(const BlockDevice& disk);
// DRAM bandwidth where the platform tells enough (channels and speed), else unknown.
CeilingResult dram_ceiling(const MemoryInfo& memory);

}  // namespace pipecheck
