// Block device discovery and classification against recorded sysfs trees (a server with
// NVMe, SATA and md; a VM with virtio, QEMU SATA and Xen disks), small trees built per test,
// and the live machine.
#include "inventory/block_devices.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

SysfsRoot recorded(const std::string& scenario) {
  return SysfsRoot(std::string(PIPECHECK_TEST_DATA) + "/sysfs/" + scenario);
}

// A copy, so that callers may pass the collector's result straight in.
BlockDevice find(const std::vector<BlockDevice>& devices, const std::string& name) {
  for (const auto& dev : devices) {
    if (dev.name == name) return dev;
  }
  ADD_FAILURE() << name << " not found";
  return BlockDevice{};
}

std::vector<std::string> names(const std::vector<BlockDevice>& devices) {
  std::vector<std::string> out;
  for (const auto& dev : devices) out.push_back(dev.name);
  return out;
}

// A scratch sysfs tree in a temp folder, removed at the end of the test.
class TempTree {
 public:
  TempTree()
      : root_(fs::temp_directory_path() /
              ("pipecheck-block-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(root_);
  }
  ~TempTree() { fs::remove_all(root_); }
  void file(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text << '\n';
  }
  void link(const std::string& path, const std::string& target) {
    fs::create_directories((root_ / path).parent_path());
    fs::create_directory_symlink(target, root_ / path);
  }
  // A disk at /sys/devices/<device_path> with /sys/block/<name> pointing at it.
  void disk(const std::string& name, const std::string& device_path, int rotational) {
    file("sys/devices/" + device_path + "/size", "2048");
    file("sys/devices/" + device_path + "/queue/rotational", std::to_string(rotational));
    link("sys/block/" + name, "../devices/" + device_path);
  }
  SysfsRoot sys() const { return SysfsRoot(root_); }

 private:
  fs::path root_;
};

TEST(BlockDevices, ServerListsDisksAndSkipsLoop) {
  const auto devices = read_block_devices(recorded("server_2s"));
  EXPECT_EQ(names(devices),
            (std::vector<std::string>{"md0", "nvme0n1", "nvme1n1", "sda", "sdb"}));
}

TEST(BlockDevices, NvmeGen4x4WithPciFunctionAndNuma) {
  const auto devices = read_block_devices(recorded("server_2s"));
  const BlockDevice nvme = find(devices, "nvme0n1");
  EXPECT_EQ(nvme.kind, DiskKind::nvme);
  EXPECT_EQ(nvme.transport, "nvme");
  EXPECT_EQ(nvme.model, "SAMSUNG MZQL21T9HCJR-00A07");  // trailing padding trimmed
  EXPECT_EQ(nvme.size_bytes, 3750748848ull * 512);
  EXPECT_FALSE(nvme.rotational);
  EXPECT_EQ(nvme.logical_block_size, 4096);
  EXPECT_EQ(nvme.pci_bdf, "0000:02:00.0");
  EXPECT_EQ(nvme.pcie.current_gts, 16.0);
  EXPECT_EQ(nvme.pcie.current_width, 4);
  EXPECT_EQ(nvme.pcie.max_gts, 16.0);
  EXPECT_FALSE(nvme.pcie.downtrained());
  EXPECT_EQ(nvme.numa_node, 1);
}

TEST(BlockDevices, NvmeLinkIsTheNarrowestHopUpToTheRootPort) {
  // The disk's own link is Gen4 x4; the switch uplink above it trained at Gen3.
  const BlockDevice nvme = find(read_block_devices(recorded("server_2s")), "nvme1n1");
  EXPECT_EQ(nvme.pci_bdf, "0000:05:00.0");
  EXPECT_EQ(nvme.pcie.current_gts, 8.0);
  EXPECT_EQ(nvme.pcie.max_gts, 16.0);
  EXPECT_TRUE(nvme.pcie.downtrained());
  EXPECT_EQ(nvme.numa_node, 0);
}

TEST(BlockDevices, SataHddAndSsdWithTheirPortsLinkSpeed) {
  const auto devices = read_block_devices(recorded("server_2s"));
  const BlockDevice hdd = find(devices, "sda");
  EXPECT_EQ(hdd.kind, DiskKind::sata_hdd);
  EXPECT_EQ(hdd.transport, "sata");
  EXPECT_TRUE(hdd.rotational);
  EXPECT_EQ(hdd.sata_gbps, 6.0);
  EXPECT_EQ(hdd.vendor, "ATA");
  EXPECT_EQ(hdd.model, "ST8000NM000A-2KE");
  EXPECT_EQ(hdd.pci_bdf, "0000:00:17.0");
  EXPECT_EQ(hdd.numa_node, 0);
  const BlockDevice ssd = find(devices, "sdb");
  EXPECT_EQ(ssd.kind, DiskKind::sata_ssd);
  EXPECT_EQ(ssd.sata_gbps, 3.0);  // ata4 -> link4, not the first link found
}

TEST(BlockDevices, MdArrayIsUnknownWithItsMembers) {
  const BlockDevice md = find(read_block_devices(recorded("server_2s")), "md0");
  EXPECT_EQ(md.kind, DiskKind::unknown);
  EXPECT_EQ(md.transport, "md");
  EXPECT_EQ(md.members, (std::vector<std::string>{"nvme0n1", "nvme1n1"}));
}

TEST(BlockDevices, VirtioDiskIsVirtualEvenThoughRotational) {
  const auto devices = read_block_devices(recorded("vm_disks"));
  const BlockDevice vda = find(devices, "vda");
  EXPECT_TRUE(vda.rotational);
  EXPECT_EQ(vda.kind, DiskKind::virtual_disk);
  EXPECT_EQ(vda.transport, "virtio");
  EXPECT_EQ(vda.pci_bdf, "0000:00:02.0");
  EXPECT_FALSE(vda.numa_node.has_value());  // numa_node -1
  EXPECT_EQ(vda.size_bytes, 536870912ull * 512);
}

TEST(BlockDevices, EmulatedAndParavirtualDisksAreVirtual) {
  const auto devices = read_block_devices(recorded("vm_disks"));
  EXPECT_EQ(names(devices), (std::vector<std::string>{"nbd0", "sda", "vda", "xvda"}));
  const BlockDevice qemu = find(devices, "sda");
  EXPECT_EQ(qemu.kind, DiskKind::virtual_disk);  // "QEMU HARDDISK" on an emulated AHCI port
  EXPECT_EQ(qemu.transport, "sata");
  EXPECT_EQ(qemu.sata_gbps, 1.5);
  EXPECT_EQ(find(devices, "xvda").kind, DiskKind::virtual_disk);
  EXPECT_EQ(find(devices, "xvda").transport, "xen");
  EXPECT_EQ(find(devices, "nbd0").kind, DiskKind::network);
}

TEST(BlockDevices, HyperVAndSasDisksBySysfsStrings) {
  TempTree tree;
  tree.disk("sdc", "pci0000:00/0000:00:10.0/host0/target0:0:0/0:0:0:0/block/sdc", 1);
  tree.link("sys/devices/pci0000:00/0000:00:10.0/host0/target0:0:0/0:0:0:0/block/sdc/device",
            "../../../0:0:0:0");
  tree.file("sys/devices/pci0000:00/0000:00:10.0/host0/target0:0:0/0:0:0:0/vendor", "Msft    ");
  tree.file("sys/devices/pci0000:00/0000:00:10.0/host0/target0:0:0/0:0:0:0/model", "Virtual Disk");
  const std::string sas = "pci0000:80/0000:80:02.0/0000:81:00.0/host4/port-4:0/end_device-4:0/"
                          "target4:0:0/4:0:0:0/block/sdd";
  tree.disk("sdd", sas, 1);
  const auto devices = read_block_devices(tree.sys());
  EXPECT_EQ(find(devices, "sdc").kind, DiskKind::virtual_disk);
  EXPECT_EQ(find(devices, "sdd").kind, DiskKind::scsi);
  EXPECT_EQ(find(devices, "sdd").transport, "sas");
  EXPECT_EQ(find(devices, "sdd").pci_bdf, "0000:81:00.0");
}

TEST(BlockDevices, NvmeOverFabricsIsNetwork) {
  TempTree tree;
  tree.disk("nvme2n1", "virtual/nvme-fabrics/ctl/nvme2/nvme2n1", 0);
  tree.link("sys/devices/virtual/nvme-fabrics/ctl/nvme2/nvme2n1/device", "../../nvme2");
  tree.file("sys/devices/virtual/nvme-fabrics/ctl/nvme2/transport", "tcp");
  tree.file("sys/devices/virtual/nvme-fabrics/ctl/nvme2/model", "Linux");
  const BlockDevice dev = find(read_block_devices(tree.sys()), "nvme2n1");
  EXPECT_EQ(dev.kind, DiskKind::network);
  EXPECT_EQ(dev.transport, "nvme-tcp");
  EXPECT_EQ(dev.model, "Linux");
  EXPECT_TRUE(dev.pci_bdf.empty());
}

TEST(BlockDevices, CloudVolumeOverNvmeIsNetwork) {
  TempTree tree;
  const std::string fn = "pci0000:00/0000:00:1f.0";
  tree.disk("nvme0n1", fn + "/nvme/nvme0/nvme0n1", 0);
  tree.link("sys/devices/" + fn + "/nvme/nvme0/nvme0n1/device", "../../nvme0");
  tree.link("sys/devices/" + fn + "/nvme/nvme0/device", "../../../0000:00:1f.0");
  tree.file("sys/devices/" + fn + "/nvme/nvme0/model", "Amazon Elastic Block Store");
  tree.file("sys/devices/" + fn + "/nvme/nvme0/transport", "pcie");
  const BlockDevice dev = find(read_block_devices(tree.sys()), "nvme0n1");
  EXPECT_EQ(dev.kind, DiskKind::network);
  EXPECT_EQ(dev.transport, "nvme");
  EXPECT_EQ(dev.pci_bdf, "0000:00:1f.0");
}

// A 3.x kernel: libata disks hang off hostN/targetN without /ataN/; libata answers vendor
// "ATA". Optical drives (SCSI type 5) and floppies are no disks.
TEST(BlockDevices, OlderKernelSataOpticalAndFloppy) {
  const auto devices = read_block_devices(recorded("disks_old_kernel"));
  EXPECT_EQ(names(devices), (std::vector<std::string>{"sda", "sdb"}));
  const BlockDevice sda = find(devices, "sda");
  EXPECT_EQ(sda.kind, DiskKind::sata_ssd);
  EXPECT_EQ(sda.transport, "sata");
  EXPECT_EQ(sda.pci_bdf, "0000:00:1f.2");
  EXPECT_FALSE(sda.sata_gbps.has_value());  // no ata_link to read it from
  const BlockDevice sdb = find(devices, "sdb");
  EXPECT_EQ(sdb.kind, DiskKind::scsi);
  EXPECT_EQ(sdb.transport, "sas");
  EXPECT_EQ(sdb.pci_bdf, "0000:02:00.0");
}

TEST(BlockDevices, SataByItsAhciControllerWithoutTheAtaVendor) {
  TempTree tree;
  tree.disk("sda", "pci0000:00/0000:00:17.0/host0/target0:0:0/0:0:0:0/block/sda", 1);
  tree.file("sys/devices/pci0000:00/0000:00:17.0/class", "0x010601");
  tree.link("sys/bus/pci/devices/0000:00:17.0", "../../../devices/pci0000:00/0000:00:17.0");
  tree.file("sys/devices/pci0000:00/0000:00:17.0/host0/target0:0:0/0:0:0:0/vendor", "WDC");
  const BlockDevice sda = find(read_block_devices(tree.sys()), "sda");
  EXPECT_EQ(sda.kind, DiskKind::sata_hdd);
  EXPECT_EQ(sda.transport, "sata");
}

TEST(BlockDevices, OpticalDriveByItsScsiTypeWhateverItsName) {
  TempTree tree;
  const std::string scsi = "sys/devices/pci0000:00/0000:00:1f.2/";
  tree.disk("scd0", "pci0000:00/0000:00:1f.2/host1/target1:0:0/1:0:0:0/block/scd0", 1);
  tree.link(scsi + "host1/target1:0:0/1:0:0:0/block/scd0/device", "../..");
  tree.file(scsi + "host1/target1:0:0/1:0:0:0/type", "5");
  tree.disk("sdc", "pci0000:00/0000:00:1f.2/host2/target2:0:0/2:0:0:0/block/sdc", 1);
  tree.link(scsi + "host2/target2:0:0/2:0:0:0/block/sdc/device", "../..");
  tree.file(scsi + "host2/target2:0:0/2:0:0:0/type", "0");
  EXPECT_EQ(names(read_block_devices(tree.sys())), std::vector<std::string>{"sdc"});
}

TEST(BlockDevices, NvmeOnAThirtyTwoBitDomainKeepsItsBusId) {
  const auto devices = read_block_devices(recorded("vmd_nvme"));
  const BlockDevice nvme = find(devices, "nvme0n1");
  EXPECT_EQ(nvme.kind, DiskKind::nvme);
  EXPECT_EQ(nvme.pci_bdf, "10000:01:00.0");
  EXPECT_EQ(nvme.pcie.current_gts, std::optional<double>(16.0));
  EXPECT_EQ(nvme.pcie.current_width, std::optional<int>(4));
  EXPECT_EQ(nvme.numa_node, std::optional<int>(0));
  EXPECT_EQ(nvme.logical_block_size, 4096);
}

TEST(BlockDevices, KindNamesAreDistinct) {
  const DiskKind kinds[] = {DiskKind::nvme,         DiskKind::sata_ssd, DiskKind::sata_hdd,
                            DiskKind::scsi,         DiskKind::virtual_disk,
                            DiskKind::network,      DiskKind::unknown};
  std::set<std::string> seen;
  for (DiskKind kind : kinds) seen.insert(to_string(kind));
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_STREQ(to_string(DiskKind::sata_hdd), "sata_hdd");
  EXPECT_STREQ(to_string(DiskKind::virtual_disk), "virtual_disk");
}

TEST(BlockDevices, MissingRootGivesNoDevices) {
  EXPECT_TRUE(read_block_devices(SysfsRoot("/nonexistent-pipecheck-root")).empty());
}

TEST(BlockDevices, LiveMachineIsSane) {
  const SysfsRoot live("/");
  for (const auto& dev : read_block_devices(live)) {
    SCOPED_TRACE(dev.name);
    const std::string path = live.resolve("/sys/block/" + dev.name).value_or("");
    if (path.find("/virtio") != std::string::npos) {
      EXPECT_EQ(dev.kind, DiskKind::virtual_disk);  // rotational=1 there, yet never an HDD
    }
    EXPECT_NE(dev.name.rfind("loop", 0), 0u);
    EXPECT_NE(dev.name.rfind("zram", 0), 0u);
    EXPECT_GT(dev.logical_block_size, 0);
    if (dev.transport == "virtio") {
      EXPECT_EQ(dev.kind, DiskKind::virtual_disk);
    }
    if (dev.kind == DiskKind::sata_hdd) {
      EXPECT_EQ(dev.transport, "sata");
    }
  }
}

}  // namespace
}  // namespace pipecheck
