// Topology of GPUs and network ports: PCIe relations from a recorded two-socket sysfs tree
// (tests/data/topology_2s, see its README), NVLink peers from NVML records, network ports.
#include "inventory/gpu_topology.hpp"

#include <gtest/gtest.h>

#include "render/inventory_text.hpp"

namespace pipecheck {
namespace {

SysfsRoot two_sockets() { return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/topology_2s"); }

GpuInfo gpu_at(const std::string& bdf) {
  GpuInfo gpu;
  gpu.pci_bdf = bdf;
  return gpu;
}

// GPU0 behind the first switch, GPU1 behind a second switch below it, GPU2 on its own root
// port, GPU3 on the other socket.
std::vector<GpuInfo> four_gpus() {
  return {gpu_at("0000:03:00.0"), gpu_at("0000:07:00.0"), gpu_at("0000:08:00.0"), gpu_at("0000:81:00.0")};
}

TEST(GpuTopology, AncestorsFromTheSysfsPathRootFirst) {
  const SysfsRoot sys = two_sockets();
  EXPECT_EQ(pci_ancestors(sys, "0000:03:00.0"),
            (std::vector<std::string>{"pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:00.0"}));
  EXPECT_EQ(pci_ancestors(sys, "0000:08:00.0"), (std::vector<std::string>{"pci0000:00", "0000:00:03.0"}));
  EXPECT_TRUE(pci_ancestors(sys, "0000:99:00.0").empty());
}

TEST(GpuTopology, PcieRelationsAsNvidiaSmiNamesThem) {
  const SysfsRoot sys = two_sockets();
  auto relation = [&](const char* a, const char* b) {
    return pcie_relation(pci_ancestors(sys, a), pci_ancestors(sys, b), 0, 0);
  };
  EXPECT_EQ(relation("0000:03:00.0", "0000:04:00.0"), "PIX");  // GPU0 and mlx5_0: one switch
  EXPECT_EQ(relation("0000:03:00.0", "0000:07:00.0"), "PXB");  // a second switch on the way
  EXPECT_EQ(relation("0000:07:00.0", "0000:04:00.0"), "PXB");
  EXPECT_EQ(relation("0000:03:00.0", "0000:08:00.0"), "PHB");  // same host bridge, no switch
  EXPECT_EQ(relation("0000:03:00.0", "0000:41:00.0"), "NODE");  // other host bridge, same node
  EXPECT_EQ(pcie_relation(pci_ancestors(sys, "0000:03:00.0"), pci_ancestors(sys, "0000:81:00.0"), 0, 1), "SYS");
  EXPECT_EQ(pcie_relation({}, pci_ancestors(sys, "0000:81:00.0"), 0, 1), "");  // a path unknown
}

TEST(GpuTopology, NvlinkDirectAndThroughSwitches) {
  GpuInfo a = gpu_at("0000:03:00.0");
  GpuInfo b = gpu_at("0000:07:00.0");
  GpuInfo c = gpu_at("0000:08:00.0");
  EXPECT_EQ(nvlinks_between(a, b), std::optional<int>(0));  // no NVLink at all
  // A bridge pair: four links straight to each other.
  a.nvlink.active_links = b.nvlink.active_links = 4;
  a.nvlink.remotes = {{"0000:07:00.0", 4, false}};
  b.nvlink.remotes = {{"0000:03:00.0", 4, false}};
  EXPECT_EQ(nvlinks_between(a, b), std::optional<int>(4));
  EXPECT_EQ(nvlinks_between(a, c), std::optional<int>(0));
  // HGX: 18 links to four NVSwitches each; every pair reaches the other through them.
  a.nvlink.active_links = c.nvlink.active_links = 18;
  a.nvlink.remotes = {{"0000:c0:00.0", 5, true}, {"0000:c1:00.0", 4, true}, {"0000:c2:00.0", 4, true},
                      {"0000:c3:00.0", 5, true}};
  c.nvlink.remotes = a.nvlink.remotes;
  EXPECT_EQ(nvlinks_between(a, c), std::optional<int>(18));
  // Active links but NVML did not say where they lead: unknown, not "none".
  c.nvlink.remotes.clear();
  EXPECT_EQ(nvlinks_between(a, c), std::nullopt);
}

TEST(GpuTopology, NetworkPortsRdmaFirstRoceOnceVirtualLeftOut) {
  const std::vector<NicInfo> nics = read_nics(two_sockets());
  ASSERT_EQ(nics.size(), 5u);
  EXPECT_EQ(nics[0].name, "mlx5_0:1");
  EXPECT_EQ(nics[0].kind, "infiniband");
  EXPECT_EQ(nics[0].rate_gbps, std::optional<double>(400));
  EXPECT_TRUE(nics[0].active);
  EXPECT_EQ(nics[0].pci_bdf, "0000:04:00.0");
  EXPECT_EQ(nics[0].numa_node, std::optional<int>(0));
  EXPECT_EQ(nics[1].name, "mlx5_1:1");
  EXPECT_EQ(nics[1].kind, "roce");
  EXPECT_EQ(nics[1].numa_node, std::optional<int>(1));
  // ens5 is mlx5_1's Ethernet side: not listed again. lo and docker0 have no PCI device.
  // A virtio NIC's device is virtioN: the PCI function above it is the one.
  EXPECT_EQ(nics[2].name, "ens3");
  EXPECT_EQ(nics[2].pci_bdf, "0000:40:02.0");
  EXPECT_TRUE(nics[2].active);
  EXPECT_FALSE(nics[2].rate_gbps.has_value());  // speed -1: the VM does not say
  EXPECT_EQ(nics[3].name, "eth0");
  EXPECT_EQ(nics[3].kind, "ethernet");
  EXPECT_EQ(nics[3].rate_gbps, std::optional<double>(25));
  EXPECT_TRUE(nics[3].active);
  EXPECT_EQ(nics[4].name, "eth1");
  EXPECT_FALSE(nics[4].active);
  EXPECT_FALSE(nics[4].rate_gbps.has_value());
}

TEST(GpuTopology, MatrixOverGpusAndNics) {
  const SysfsRoot sys = two_sockets();
  std::vector<GpuInfo> gpus = four_gpus();
  gpus[0].nvlink.active_links = gpus[2].nvlink.active_links = 4;
  gpus[0].nvlink.remotes = {{"0000:08:00.0", 4, false}};
  gpus[2].nvlink.remotes = {{"0000:03:00.0", 4, false}};
  const Topology t = derive_topology(sys, gpus, read_nics(sys));
  ASSERT_EQ(t.devices.size(), 9u);
  EXPECT_EQ(t.devices[0].label, "GPU0");
  EXPECT_EQ(t.devices[4].label, "NIC0");
  EXPECT_EQ(t.devices[3].numa_node, std::optional<int>(1));  // from sysfs
  ASSERT_EQ(t.matrix.size(), 9u);
  EXPECT_EQ(t.matrix[0], (std::vector<std::string>{"X", "PXB", "NV4", "SYS", "PIX", "SYS", "NODE", "NODE", "NODE"}));
  EXPECT_EQ(t.matrix[6][7], "PHB");  // ens3 and eth0: one host bridge, different root ports
  EXPECT_EQ(t.matrix[2][0], "NV4");  // symmetric
  EXPECT_EQ(t.matrix[3][5], "PHB");  // GPU3 and mlx5_1 share the second socket's host bridge
  EXPECT_EQ(*topology_cell(t, "0000:03:00.0", "0000:08:00.0"), "NV4");
  EXPECT_EQ(*topology_cell(t, "03:00.0", "0000:07:00.0"), "PXB");  // any bus id spelling
  EXPECT_EQ(topology_cell(t, "0000:03:00.0", "0000:99:00.0"), nullptr);
  const std::string pairs = topology_pairs_text(t);
  EXPECT_EQ(pairs.rfind("GPU0-GPU1 PXB, GPU0-GPU2 NV4, GPU0-GPU3 SYS, GPU0-NIC0 PIX", 0), 0u) << pairs;
}

TEST(GpuTopology, InventoryTextShowsTheMatrixAndPorts) {
  const SysfsRoot sys = two_sockets();
  Inventory inventory;
  inventory.gpus = four_gpus();
  inventory.nics = read_nics(sys);
  inventory.topology = derive_topology(sys, inventory.gpus, inventory.nics);
  const std::string text = render_inventory(inventory);
  EXPECT_NE(text.find("Topology\n        GPU0  GPU1  GPU2  GPU3  NIC0  NIC1  NIC2  NIC3  NIC4  NUMA\n"
                      "  GPU0  X     PXB   PHB   SYS   PIX   SYS   NODE  NODE  NODE  0  [0000:03:00.0]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  NIC0: mlx5_0:1, infiniband, 400 Gb/s, active  [0000:04:00.0]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  NIC4: eth1, ethernet, rate unknown, down  [0000:41:00.1]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  ceiling across nodes: 62.5 GB/s = 500 Gb/s over 2 ports / 8 per direction (active RDMA ports "
                      "mlx5_0:1,mlx5_1:1, sysfs)"),
            std::string::npos)
      << text;
}

TEST(GpuTopology, UnknownDevicesAndWidths) {
  // A GPU sysfs does not know (a VM without the tree): "?" instead of a guess.
  const Topology t = derive_topology(two_sockets(), {gpu_at("0000:03:00.0"), gpu_at("0000:99:00.0")}, {});
  EXPECT_EQ(t.matrix[0][1], "?");
  EXPECT_EQ(nvlink_width("NV18"), std::optional<int>(18));
  EXPECT_EQ(nvlink_width("NV?"), std::optional<int>(0));
  EXPECT_EQ(nvlink_width("NODE"), std::nullopt);
  EXPECT_EQ(nvlink_width("NVx"), std::nullopt);
}

TEST(GpuTopology, NvmlLevelsInNvidiaSmiWords) {
  EXPECT_EQ(nvml_topology_word(0), std::optional<std::string>("PIX"));  // two GPUs of one board
  EXPECT_EQ(nvml_topology_word(10), std::optional<std::string>("PIX"));
  EXPECT_EQ(nvml_topology_word(20), std::optional<std::string>("PXB"));
  EXPECT_EQ(nvml_topology_word(30), std::optional<std::string>("PHB"));
  EXPECT_EQ(nvml_topology_word(40), std::optional<std::string>("NODE"));
  EXPECT_EQ(nvml_topology_word(50), std::optional<std::string>("SYS"));
  EXPECT_FALSE(nvml_topology_word(15).has_value());
  EXPECT_FALSE(nvml_topology_word(-1).has_value());
}

TEST(GpuTopology, NvmlRelationWinsOverThePath) {
  // NVML knows switches sysfs does not show (a board's own, or one a hypervisor hides).
  PairRelations nvml;
  nvml[{"0000:03:00.0", "0000:07:00.0"}] = "PIX";
  const Topology t = derive_topology(two_sockets(), four_gpus(), {}, {}, nvml);
  EXPECT_EQ(t.matrix[0][1], "PIX");
  EXPECT_EQ(t.matrix[1][0], "PIX");
  EXPECT_EQ(t.matrix[0][2], "PHB");  // not in NVML's answers: the PCI tree's relation
}

TEST(GpuTopology, PciTreeRecordsGiveThePath) {
  // The inventory's PCI records (hwloc's tree) are the place of a device; sysfs only for the rest.
  PciDevice first;
  first.bdf = "0000:03:00.0";
  first.upstream = {"pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:08.0"};
  PciDevice second = first;
  second.bdf = "0000:08:00.0";
  const Topology t = derive_topology(two_sockets(), four_gpus(), {}, {first, second});
  EXPECT_EQ(t.matrix[0][2], "PIX");  // both below 0000:01:00.0 in the records, PHB by sysfs
}

TEST(GpuTopology, RecordedTreeWithGpusOnTheBus) {
  const SysfsRoot sys(std::string(PIPECHECK_TEST_DATA) + "/sysfs/gpu_without_driver");
  const Topology t = derive_topology(sys, {gpu_at("0000:18:00.0"), gpu_at("0000:19:00.0")}, {});
  EXPECT_EQ(t.matrix[0][1], "PIX");
}

TEST(GpuTopology, NothingFromAnNvmlThatIsNotLoaded) {
  std::vector<GpuInfo> gpus = four_gpus();
  std::vector<std::string> notes;
  const NvmlLibrary missing("/nonexistent/libnvidia-ml.so.1");
  add_nvlink_remotes(missing, gpus, notes);
  EXPECT_TRUE(gpus[0].nvlink.remotes.empty());
  EXPECT_TRUE(nvml_pcie_relations(missing, gpus, notes).empty());
  EXPECT_TRUE(notes.empty());
}

}  // namespace
}  // namespace pipecheck
