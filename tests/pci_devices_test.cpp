// The PCI devices of the inventory: hwloc's tree joined with the sysfs walk.
#include "inventory/pci_devices.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

SysfsRoot tree(const std::string& name) { return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/sysfs/" + name); }

const PciDevice* find(const std::vector<PciDevice>& devices, const std::string& bdf) {
  for (const auto& d : devices) {
    if (d.bdf == bdf) return &d;
  }
  return nullptr;
}

TEST(PciDevices, ThirtyTwoBitDomainFromSysfs) {
  const SysfsRoot sys = tree("vmd_nvme");
  const std::vector<PciDevice> devices = read_pci_devices(sys, load_hwloc_topology(sys));
  const PciDevice* nvme = find(devices, "10000:01:00.0");
  ASSERT_NE(nvme, nullptr);
  EXPECT_EQ(nvme->source, "sysfs");
  EXPECT_EQ(nvme->kind, "nvme");
  EXPECT_EQ(nvme->class_code, 0x010802u);
  EXPECT_EQ(nvme->driver, "nvme");
  EXPECT_EQ(nvme->numa_node, std::optional<int>(0));
  EXPECT_EQ(nvme->link.current_width, std::optional<int>(4));
  EXPECT_EQ(nvme->upstream, (std::vector<std::string>{"pci0000:00", "0000:00:0e.0", "pci10000:00", "10000:00:02.0"}));
  const PciDevice* vmd = find(devices, "0000:00:0e.0");
  ASSERT_NE(vmd, nullptr);
  EXPECT_EQ(vmd->source, "hwloc");
  EXPECT_EQ(vmd->driver, "vmd");
}

TEST(PciDevices, HwlocTreeWithSysfsFacts) {
  const SysfsRoot sys = tree("gpu_without_driver");
  const std::vector<PciDevice> devices = read_pci_devices(sys, load_hwloc_topology(sys));
  ASSERT_EQ(devices.size(), 3u);  // two GPUs and the NIC; bridges and the NVSwitch are not listed
  EXPECT_EQ(devices[0].bdf, "0000:18:00.0");
  EXPECT_EQ(devices[0].source, "hwloc");
  EXPECT_EQ(devices[0].class_code, 0x030200u);  // sysfs keeps the programming interface byte
  EXPECT_EQ(devices[0].upstream.size(), 4u);
  EXPECT_EQ(devices[2].driver, "mlx5_core");
}

TEST(PciDevices, SysfsAloneWhereHwlocCannotRead) {
  // Without hwloc the kernel's own path still gives the bridges.
  const std::vector<PciDevice> devices = read_pci_devices(tree("gpu_without_driver"), HwlocTopology{});
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[0].source, "sysfs");
  EXPECT_EQ(devices[0].upstream, (std::vector<std::string>{"pci0000:15", "0000:15:01.0", "0000:16:00.0", "0000:17:00.0"}));
  EXPECT_EQ(devices[0].local_cpus, "0-3");
}

TEST(PciDevices, NvidiaGpusOnTheBus) {
  const SysfsRoot sys = tree("gpu_without_driver");
  const std::vector<GpuInfo> gpus = nvidia_gpus_on_bus(sys, read_pci_devices(sys, load_hwloc_topology(sys)));
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].pci_bdf, "0000:18:00.0");
  EXPECT_EQ(gpus[0].seen_by, std::vector<std::string>{"pci"});
  EXPECT_EQ(gpus[0].pci_driver, "");
  EXPECT_EQ(gpus[0].pci_device_id, std::optional<unsigned>(0x2330));
  EXPECT_EQ(gpus[0].name, "NVIDIA GPU [10de:2330]");
  EXPECT_EQ(gpus[0].cuda_index, -1);
  EXPECT_EQ(gpus[0].pcie.current_gts, std::optional<double>(32.0));
  EXPECT_EQ(gpus[1].pci_bdf, "0000:19:00.0");
}

}  // namespace
}  // namespace pipecheck
