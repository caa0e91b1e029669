// hwloc on the live machine and on recorded trees: what it reads, and that nothing of this host
// leaks into a recorded tree (this VM's CPU, caches and processor count differ from every tree).
#include "inventory/hwloc_topology.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

namespace pipecheck {
namespace {

SysfsRoot tree(const std::string& name) { return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/sysfs/" + name); }

const CacheLevel* level(const HwlocTopology& topology, int n, const std::string& type = "unified") {
  for (const auto& c : topology.caches) {
    if (c.level == n && c.type == type) return &c;
  }
  return nullptr;
}

TEST(HwlocTopology, ReadsARecordedTree) {
  const HwlocTopology t = load_hwloc_topology(tree("x86_old_kernel"));
  ASSERT_TRUE(t.loaded) << t.error;
  EXPECT_TRUE(t.linux_cpus);
  EXPECT_EQ(t.packages, 2);
  EXPECT_EQ(t.cores, 8);
  EXPECT_EQ(t.pus, 16);
  // The tree's caches only: this host's CPUID (x86 backend) would add its own 32 MiB L3.
  const CacheLevel* l3 = level(t, 3);
  ASSERT_NE(l3, nullptr);
  EXPECT_EQ(l3->instance_bytes, 10u << 20);
  EXPECT_EQ(l3->instances, 2);
  EXPECT_EQ(t.l3_per_package, std::optional<std::uint64_t>(10u << 20));
  ASSERT_NE(level(t, 1, "instruction"), nullptr);
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[0].cpus, 8);
  EXPECT_EQ(t.nodes[1].memory_bytes, std::optional<std::uint64_t>(32921484ull * 1024));
}

TEST(HwlocTopology, ATreeWithoutCpuTopologyIsNotThisHost) {
  // hwloc's no-OS fallback would count this host's processors; it is kept out.
  const HwlocTopology t = load_hwloc_topology(tree("s390x_books"));
  EXPECT_FALSE(t.linux_cpus);
  EXPECT_EQ(t.error, "hwloc found no CPU topology in /sys/devices/system/cpu");
  // Nothing of this host: its x86 backend would read this CPU's caches through CPUID.
  EXPECT_EQ(t.pus, 0);
  EXPECT_EQ(t.packages, 0);
  EXPECT_TRUE(t.caches.empty());
}

TEST(HwlocTopology, PackagesFromMasksWherePackageIdsAreMinusOne) {
  const HwlocTopology t = load_hwloc_topology(tree("power9_lpar"));
  ASSERT_TRUE(t.linux_cpus);
  EXPECT_EQ(t.packages, 2);  // the two core_siblings sets, not the one "-1"
  EXPECT_EQ(t.cores, 4);
}

TEST(HwlocTopology, PciTreeWithBridgesFromConfigSpace) {
  const HwlocTopology t = load_hwloc_topology(tree("gpu_without_driver"));
  ASSERT_TRUE(t.loaded);
  std::map<std::string, const PciDevice*> by_bdf;
  for (const auto& d : t.pci) by_bdf[d.bdf] = &d;
  ASSERT_TRUE(by_bdf.count("0000:18:00.0"));
  const PciDevice& gpu = *by_bdf["0000:18:00.0"];
  EXPECT_EQ(gpu.kind, "gpu");
  EXPECT_EQ(gpu.vendor_id, 0x10deu);
  EXPECT_EQ(gpu.upstream, (std::vector<std::string>{"pci0000:15", "0000:15:01.0", "0000:16:00.0", "0000:17:00.0"}));
  EXPECT_EQ(gpu.local_cpus, "0-3");
  ASSERT_TRUE(gpu.link_gbps.has_value());
  EXPECT_NEAR(*gpu.link_gbps, 63.0, 0.1);  // 32 GT/s x16 x 128/130 / 8
  EXPECT_EQ(by_bdf["0000:1a:00.0"]->kind, "nic");
  EXPECT_FALSE(by_bdf.count("0000:00:05.0"));  // the NVSwitch is a bridge-class device, not listed
}

TEST(HwlocTopology, DropsThirtyTwoBitDomains) {
  // Debian's hwloc 2.9 has no 32-bit PCI domains: the VMD NVMe is missing here (pci_devices
  // walks sysfs for it).
  const HwlocTopology t = load_hwloc_topology(tree("vmd_nvme"));
  for (const auto& d : t.pci) EXPECT_NE(d.bdf.rfind("10000:", 0), 0u) << d.bdf;
}

TEST(HwlocTopology, EnvironmentIsRestored) {
  ::setenv("HWLOC_FSROOT", "/elsewhere", 1);
  load_hwloc_topology(tree("arm_server"));
  EXPECT_STREQ(std::getenv("HWLOC_FSROOT"), "/elsewhere");
  ::unsetenv("HWLOC_FSROOT");
  load_hwloc_topology(tree("arm_server"));
  EXPECT_EQ(std::getenv("HWLOC_FSROOT"), nullptr);
}

TEST(HwlocTopology, LiveMachine) {
  const HwlocTopology t = load_hwloc_topology(SysfsRoot("/"));
  ASSERT_TRUE(t.loaded) << t.error;
  EXPECT_TRUE(t.linux_cpus);
  EXPECT_EQ(t.pus, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_GE(t.cores, 1);
  EXPECT_LE(t.cores, t.pus);
  EXPECT_GE(t.packages, 1);
}

TEST(HwlocTopology, PciKinds) {
  EXPECT_EQ(pci_kind_of_class(0x030200), "gpu");
  EXPECT_EQ(pci_kind_of_class(0x030000), "gpu");
  EXPECT_EQ(pci_kind_of_class(0x020000), "nic");
  EXPECT_EQ(pci_kind_of_class(0x020700), "nic");
  EXPECT_EQ(pci_kind_of_class(0x0c0600), "nic");
  EXPECT_EQ(pci_kind_of_class(0x010802), "nvme");
  EXPECT_EQ(pci_kind_of_class(0x010601), "storage");
  EXPECT_EQ(pci_kind_of_class(0x068000), "");
  EXPECT_EQ(pci_kind_of_class(0x040300), "");  // a GPU's audio function
}

}  // namespace
}  // namespace pipecheck
