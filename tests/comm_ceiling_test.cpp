// The ceiling of a collective's bus bandwidth: NVLink when every pair of the job's GPUs shares
// it, else PCIe, across nodes the network; the derivation names which bounds. Through the report's
// ceiling rule too, as a pipecheck-comm result reaches it.
#include <gtest/gtest.h>

#include "ceilings/ceilings.hpp"
#include "report/report.hpp"

namespace pipecheck {
namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

GpuInfo h100(int index, const std::string& bdf, int nvlinks) {
  GpuInfo gpu;
  gpu.cuda_index = index;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.pci_bdf = bdf;
  gpu.cc_major = 9;
  gpu.nvlink.active_links = nvlinks;
  gpu.nvlink.version = 4;
  gpu.pcie.current_gts = 32.0;
  gpu.pcie.current_width = 16;
  return gpu;
}

// Four GPUs: 0-1 and 2-3 are NVLink bridge pairs, the pairs meet only through PCIe.
struct BridgedPairs {
  std::vector<GpuInfo> gpus = {h100(0, "0000:17:00.0", 4), h100(1, "0000:18:00.0", 4), h100(2, "0000:b3:00.0", 4),
                               h100(3, "0000:b4:00.0", 4)};
  Topology topology;
  BridgedPairs() {
    for (const auto& gpu : gpus) topology.devices.push_back({"GPU" + std::to_string(gpu.cuda_index), gpu.pci_bdf, 0});
    topology.matrix = {{"X", "NV4", "SYS", "SYS"}, {"NV4", "X", "SYS", "SYS"}, {"SYS", "SYS", "X", "NV4"},
                       {"SYS", "SYS", "NV4", "X"}};
  }
  std::vector<const GpuInfo*> pick(std::initializer_list<int> which) const {
    std::vector<const GpuInfo*> picked;
    for (int i : which) picked.push_back(&gpus[static_cast<std::size_t>(i)]);
    return picked;
  }
};

NicInfo port(const std::string& name, const std::string& kind, double gbps, bool active = true) {
  NicInfo nic;
  nic.name = name;
  nic.kind = kind;
  nic.rate_gbps = gbps;
  nic.active = active;
  return nic;
}

TEST(CommCeiling, NvlinkWhenEveryPairSharesIt) {
  const BridgedPairs machine;
  const CeilingResult c = collective_ceiling(machine.pick({0, 1}), machine.topology, {}, 1);
  ASSERT_TRUE(c.ceiling);
  EXPECT_NEAR(c.ceiling->value, 100, 1e-9);  // 4 links x 25 GB/s
  EXPECT_TRUE(starts_with(c.ceiling->derivation, "NVLink bounds: 100.0 GB/s = 4 active links")) << c.ceiling->derivation;
}

TEST(CommCeiling, PcieWhenAPairLacksNvlinkAndSaysWhich) {
  const BridgedPairs machine;
  const CeilingResult c = collective_ceiling(machine.pick({0, 1, 2}), machine.topology, {}, 1);
  ASSERT_TRUE(c.ceiling);
  EXPECT_NEAR(c.ceiling->value, 32.0 * 16 * 128 / 130 / 8, 1e-9);
  EXPECT_TRUE(starts_with(c.ceiling->derivation, "PCIe bounds (GPU 0 and GPU 2 share no NVLink (SYS)): 63.0 GB/s"))
      << c.ceiling->derivation;
}

TEST(CommCeiling, SlowestGpuBounds) {
  BridgedPairs machine;
  machine.gpus[1].pcie.current_width = 8;  // a GPU on a narrower link holds the ring back
  const CeilingResult c = collective_ceiling(machine.pick({0, 1, 2, 3}), machine.topology, {}, 1);
  ASSERT_TRUE(c.ceiling);
  EXPECT_NEAR(c.ceiling->value, 32.0 * 8 * 128 / 130 / 8, 1e-9);
}

TEST(CommCeiling, WithoutTopologyEveryGpuNeedsActiveLinks) {
  // Inventories recorded before the topology: active links on every GPU still mean NVLink.
  const BridgedPairs machine;
  EXPECT_TRUE(starts_with(collective_ceiling(machine.pick({0, 2}), Topology{}, {}, 1).ceiling->derivation, "NVLink"));
  GpuInfo pcie_only = h100(4, "0000:c1:00.0", 0);
  const std::vector<const GpuInfo*> mixed = {&machine.gpus[0], &pcie_only};
  EXPECT_TRUE(starts_with(collective_ceiling(mixed, Topology{}, {}, 1).ceiling->derivation, "PCIe bounds"));
  const std::vector<const GpuInfo*> one = {&pcie_only};
  EXPECT_TRUE(starts_with(collective_ceiling(one, Topology{}, {}, 1).ceiling->derivation,
                          "PCIe bounds (no active NVLink)"));
  EXPECT_FALSE(collective_ceiling({}, Topology{}, {}, 1).ceiling);
}

TEST(CommCeiling, NetworkIsTheNodesRdmaPortsElseEthernet) {
  const CeilingResult ib = network_ceiling({port("mlx5_0:1", "infiniband", 400), port("mlx5_1:1", "infiniband", 400),
                                            port("eth0", "ethernet", 25), port("mlx5_2:1", "infiniband", 400, false)});
  ASSERT_TRUE(ib.ceiling);
  EXPECT_NEAR(ib.ceiling->value, 100, 1e-9);  // two active 400 Gb/s ports; Ethernet and the down port left out
  EXPECT_EQ(ib.ceiling->derivation, "100.0 GB/s = 2 x 400 Gb/s / 8 per direction (active RDMA ports mlx5_0:1,mlx5_1:1, sysfs)");
  const CeilingResult eth = network_ceiling({port("eth0", "ethernet", 100), port("eth1", "ethernet", 10)});
  ASSERT_TRUE(eth.ceiling);
  EXPECT_NEAR(eth.ceiling->value, 13.75, 1e-9);
  EXPECT_EQ(eth.ceiling->derivation, "13.75 GB/s = 110 Gb/s over 2 ports / 8 per direction (active Ethernet ports eth0,eth1, sysfs)");
  EXPECT_FALSE(network_ceiling({port("eth0", "ethernet", 100, false)}).ceiling);
  EXPECT_FALSE(network_ceiling({}).ceiling);
}

TEST(CommCeiling, NetworkCountsOnlyThePortsNcclWasToldToUse) {
  const std::vector<NicInfo> nics = {port("mlx5_0:1", "infiniband", 400), port("mlx5_1:1", "roce", 100),
                                     port("eth0", "ethernet", 25), port("eth1", "ethernet", 10)};
  NcclPortSelection ib_only;
  ib_only.ib_hca = "=mlx5_0";
  const CeilingResult ib = network_ceiling(nics, ib_only);
  ASSERT_TRUE(ib.ceiling);
  EXPECT_EQ(ib.ceiling->derivation,
            "50.0 GB/s = 1 x 400 Gb/s / 8 per direction (active RDMA port mlx5_0:1 selected by NCCL_IB_HCA==mlx5_0, "
            "sysfs)");
  NcclPortSelection sockets;
  sockets.ib_disabled = true;
  sockets.socket_ifname = "eth0";
  const CeilingResult eth = network_ceiling(nics, sockets);
  ASSERT_TRUE(eth.ceiling);
  EXPECT_NEAR(eth.ceiling->value, 25.0 / 8, 1e-9);  // eth1 not selected, RDMA disabled
  NcclPortSelection none;
  none.ib_hca = "mlx5_9";
  none.socket_ifname = "ens";
  EXPECT_EQ(network_ceiling(nics, none).unknown_reason,
            "unknown: no active network port with a known rate selected by NCCL_IB_HCA=mlx5_9 NCCL_SOCKET_IFNAME=ens");
  // Without NCCL variables: every active RDMA port, as before.
  EXPECT_NEAR(network_ceiling(nics).ceiling->value, 62.5, 1e-9);
}

TEST(CommCeiling, AcrossNodesTheLowerOfNodeAndNetworkBounds) {
  const BridgedPairs machine;
  const std::vector<NicInfo> nics = {port("mlx5_0:1", "infiniband", 200)};  // 25 GB/s
  const CeilingResult slow_net = collective_ceiling(machine.pick({0, 1}), machine.topology, nics, 2);
  ASSERT_TRUE(slow_net.ceiling);
  EXPECT_NEAR(slow_net.ceiling->value, 25, 1e-9);
  EXPECT_TRUE(starts_with(slow_net.ceiling->derivation, "Network bounds (2 nodes): 25.0 GB/s")) << slow_net.ceiling->derivation;
  const std::vector<NicInfo> fast = {port("a", "infiniband", 400), port("b", "infiniband", 400), port("c", "infiniband", 400)};
  EXPECT_TRUE(starts_with(collective_ceiling(machine.pick({0, 1}), machine.topology, fast, 2).ceiling->derivation,
                          "NVLink bounds"));
  const CeilingResult unknown_net = collective_ceiling(machine.pick({0, 1}), machine.topology, {}, 4);
  ASSERT_TRUE(unknown_net.ceiling);
  EXPECT_NE(unknown_net.ceiling->derivation.find("across 4 nodes the network may bound lower"), std::string::npos);
}

Measurement bus_bandwidth(std::map<std::string, std::string> params) {
  Measurement m;
  m.key = "comm/all_reduce/float/ranks:2/bytes:1073741824";
  m.stage = "comm";
  m.unit = "GB/s";
  m.stats.median = 80;
  m.params = std::move(params);
  return m;
}

TEST(CommCeiling, ReportRuleTakesTheJobsGpusAndNodes) {
  const BridgedPairs machine;
  Inventory inventory;
  inventory.gpus = machine.gpus;
  inventory.topology = machine.topology;
  inventory.nics = {port("mlx5_0:1", "infiniband", 200)};
  const auto pair = ceiling_for(bus_bandwidth({{"gpu_bdfs", "0000:17:00.0,18:00.0"}, {"nodes", "1"}}), inventory);
  ASSERT_TRUE(pair.ceiling);
  EXPECT_TRUE(starts_with(pair.ceiling->derivation, "NVLink bounds"));
  const auto across = ceiling_for(bus_bandwidth({{"gpu_bdfs", "0000:17:00.0,0000:b3:00.0"}}), inventory);
  EXPECT_TRUE(starts_with(across.ceiling->derivation, "PCIe bounds"));
  const auto nodes = ceiling_for(bus_bandwidth({{"gpu_bdfs", "0000:17:00.0,0000:18:00.0"}, {"nodes", "2"}}), inventory);
  EXPECT_TRUE(starts_with(nodes.ceiling->derivation, "Network bounds"));
  // The NCCL variables recorded with the result choose the ports: none of them here.
  const auto excluded = ceiling_for(
      bus_bandwidth({{"gpu_bdfs", "0000:17:00.0,0000:18:00.0"}, {"nodes", "2"}, {"nccl_env", "NCCL_IB_HCA=^mlx5_0"}}),
      inventory);
  ASSERT_TRUE(excluded.ceiling);
  EXPECT_TRUE(starts_with(excluded.ceiling->derivation, "NVLink bounds")) << excluded.ceiling->derivation;
  EXPECT_NE(excluded.ceiling->derivation.find("selected by NCCL_IB_HCA=^mlx5_0"), std::string::npos);
  // Without gpu_bdfs (results of older probes): every GPU of the inventory.
  EXPECT_TRUE(starts_with(ceiling_for(bus_bandwidth({}), inventory).ceiling->derivation, "PCIe bounds"));
  const auto missing = ceiling_for(bus_bandwidth({{"gpu_bdfs", "0000:17:00.0,0000:99:00.0"}}), inventory);
  EXPECT_EQ(missing.unknown_reason, "unknown: GPU 0000:99:00.0 is not in the inventory");
  // One rank (pipecheck-comm -g 1) crosses no link: no ceiling, rather than the GPU's NVLink.
  const auto one = ceiling_for(bus_bandwidth({{"gpu_bdfs", "0000:17:00.0"}, {"ranks", "1"}}), inventory);
  EXPECT_FALSE(one.ceiling);
  EXPECT_EQ(one.unknown_reason, "none: one rank moves nothing between GPUs");
}

}  // namespace
}  // namespace pipecheck
