// Block device discovery and classification from /sys/block. The classification reads the
// resolved sysfs path (which bus the disk hangs off) before trusting queue/rotational, since
// virtio and other virtual disks report rotational=1 and must never be called HDDs.
#include "inventory/block_devices.hpp"

#include <array>
#include <cctype>
#include <sstream>

#include "inventory/pcie_link.hpp"

namespace pipecheck {

const char* to_string(DiskKind kind) {
  switch (kind) {
    case DiskKind::nvme: return "nvme";
    case DiskKind::sata_ssd: return "sata_ssd";
    case DiskKind::sata_hdd: return "sata_hdd";
    case DiskKind::scsi: return "scsi";
    case DiskKind::virtual_disk: return "virtual_disk";
    case DiskKind::network: return "network";
    case DiskKind::unknown: return "unknown";
  }
  return "unknown";
}

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

bool is_numbered(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || !starts_with(name, prefix)) return false;
  return name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

// "0000:02:00.0": domain:bus:device.function, all hex. Domains are 4 digits, or up to 8 where a
// host bridge such as Intel VMD opens a 32-bit domain ("10000:01:00.0").
bool looks_like_bdf(const std::string& name) {
  const std::size_t domain = name.size() - 8;
  if (name.size() < 12 || name.size() > 16 || name[domain] != ':' || name[domain + 3] != ':' ||
      name[domain + 6] != '.') {
    return false;
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (i == domain || i == domain + 3 || i == domain + 6) continue;
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  return true;
}

// The PCI function nearest the disk on its sysfs path (the NVMe, AHCI, HBA or virtio function).
std::string last_bdf(const std::string& path) {
  std::string found;
  std::istringstream parts(path);
  for (std::string part; std::getline(parts, part, '/');) {
    if (looks_like_bdf(part)) found = part;
  }
  return found;
}

// N of "/ataN/" in a resolved path: libata names the port, and /sys/class/ata_link/linkN
// carries its negotiated speed.
std::optional<int> ata_port(const std::string& path) {
  for (auto at = path.find("/ata"); at != std::string::npos; at = path.find("/ata", at + 1)) {
    const auto digits = at + 4;
    const auto end = path.find_first_not_of("0123456789", digits);
    if (end == digits || end == std::string::npos || path[end] != '/') continue;
    return std::stoi(path.substr(digits, end - digits));
  }
  return std::nullopt;
}

// "6.0 Gbps" -> 6.0; "<unknown>" -> nullopt.
std::optional<double> parse_gbps(const std::string& text) {
  std::istringstream in(text);
  double value = 0;
  if (!(in >> value) || value <= 0) return std::nullopt;
  return value;
}

// Vendor/model strings of disks that have no hardware of their own behind them: hypervisor
// emulations, and cloud network volumes presented as SCSI or NVMe.
struct Marker {
  const char* text;
  DiskKind kind;
};
constexpr std::array<Marker, 9> kMarkers = {{
    {"QEMU", DiskKind::virtual_disk},            // "QEMU HARDDISK" (ATA), "QEMU" (scsi-hd)
    {"VMware", DiskKind::virtual_disk},          // pvscsi / LSI "VMware Virtual disk"
    {"Msft", DiskKind::virtual_disk},            // Hyper-V "Msft Virtual Disk"
    {"VBOX", DiskKind::virtual_disk},            // VirtualBox "VBOX HARDDISK"
    {"Virtual disk", DiskKind::virtual_disk},
    {"Amazon Elastic Block Store", DiskKind::network},  // EBS over NVMe
    {"PersistentDisk", DiskKind::network},       // GCP PD over SCSI
    {"nvme_card-pd", DiskKind::network},         // GCP PD over NVMe
    {"MSFT NVMe Accelerator", DiskKind::network},  // Azure remote disk over NVMe
}};

std::optional<DiskKind> marked_kind(const BlockDevice& dev) {
  const std::string identity = dev.vendor + " " + dev.model;
  for (const auto& marker : kMarkers) {
    if (contains(identity, marker.text)) return marker.kind;
  }
  return std::nullopt;
}

// The NVMe controller of a namespace: /sys/block/X/device is the controller, or with native
// multipath the subsystem, whose first controller we take.
std::optional<std::string> nvme_controller(const SysfsRoot& sys, const std::string& block) {
  auto controller = sys.resolve(block + "/device");
  if (!controller || !starts_with(base_name(*controller), "nvme-subsys")) return controller;
  for (const auto& name : sys.list(*controller)) {
    if (is_numbered(name, "nvme")) return sys.resolve(*controller + "/" + name);
  }
  return std::nullopt;
}

void classify_nvme(const SysfsRoot& sys, const std::string& block, BlockDevice& dev) {
  dev.transport = "nvme";
  dev.kind = DiskKind::nvme;
  const auto controller = nvme_controller(sys, block);
  if (!controller) return;
  if (dev.model.empty()) dev.model = sys.read_line(*controller + "/model").value_or("");
  // NVMe over fabrics (tcp, rdma, fc) reaches a remote target: no local PCIe ceiling.
  const auto transport = sys.read_line(*controller + "/transport");
  if (transport && *transport != "pcie") {
    dev.transport = "nvme-" + *transport;
    dev.kind = *transport == "loop" ? DiskKind::virtual_disk : DiskKind::network;
    dev.pci_bdf.clear();
    return;
  }
  if (const auto function = sys.resolve(*controller + "/device")) {
    const std::string bdf = last_bdf(*function);
    if (!bdf.empty()) dev.pci_bdf = bdf;
  }
  if (!dev.pci_bdf.empty()) dev.pcie = read_pcie_path_link(sys, dev.pci_bdf);
  if (const auto kind = marked_kind(dev)) dev.kind = *kind;
}

void classify_sata(const SysfsRoot& sys, std::optional<int> port, BlockDevice& dev) {
  dev.transport = "sata";
  if (port) {
    const auto speed = sys.read_line("/sys/class/ata_link/link" + std::to_string(*port) + "/sata_spd");
    if (speed) dev.sata_gbps = parse_gbps(*speed);
  }
  dev.kind = dev.rotational ? DiskKind::sata_hdd : DiskKind::sata_ssd;
  if (const auto kind = marked_kind(dev)) dev.kind = *kind;
}

// An ATA disk behind libata on a kernel that does not put /ataN/ in the path (before 2.6.36 or
// so): libata's SCSI translation answers the vendor "ATA", and the controller is a SATA
// (AHCI) function, PCI class 0x0106.
bool is_ata_without_port(const SysfsRoot& sys, BlockDevice& dev) {
  if (dev.vendor == "ATA") return true;
  if (dev.pci_bdf.empty()) return false;
  const auto klass = sys.read_int("/sys/bus/pci/devices/" + dev.pci_bdf + "/class");
  return klass && (*klass >> 8) == 0x0106;
}

void classify_scsi(const std::string& path, BlockDevice& dev) {
  // The SAS transport class puts an end_device-H:P between the HBA and the target.
  dev.transport = contains(path, "/end_device-") ? "sas" : "scsi";
  dev.kind = DiskKind::scsi;
  if (const auto kind = marked_kind(dev)) dev.kind = *kind;
}

// Paths tell virtual and remote buses apart; checked before ATA/SCSI, which they may wrap
// (virtio-scsi, iSCSI and Hyper-V storvsc disks are SCSI disks too).
bool classify_by_path(const std::string& path, BlockDevice& dev) {
  struct PathRule {
    const char* part;
    const char* transport;
    DiskKind kind;
  };
  static constexpr std::array<PathRule, 5> rules = {{
      {"/virtio", "virtio", DiskKind::virtual_disk},
      {"/vbd-", "xen", DiskKind::virtual_disk},
      {"/VMBUS:", "hyperv", DiskKind::virtual_disk},
      {"/session", "iscsi", DiskKind::network},
      {"/usb", "usb", DiskKind::unknown},
  }};
  for (const auto& rule : rules) {
    if (!contains(path, rule.part)) continue;
    dev.transport = rule.transport;
    dev.kind = rule.kind;
    return true;
  }
  return false;
}

// Local disks on a real bus; what matches none stays unknown.
void classify_by_bus(const SysfsRoot& sys, const std::string& path, BlockDevice& dev) {
  if (const auto port = ata_port(path)) {
    classify_sata(sys, port, dev);
  } else if (contains(path, "/host") && contains(path, "/target")) {
    if (is_ata_without_port(sys, dev)) {
      classify_sata(sys, std::nullopt, dev);
    } else {
      classify_scsi(path, dev);
    }
  } else if (starts_with(dev.name, "mmcblk")) {
    dev.transport = "mmc";
  }
}

void classify(const SysfsRoot& sys, const std::string& block, const std::string& path,
              BlockDevice& dev) {
  if (starts_with(dev.name, "nbd") || starts_with(dev.name, "rbd")) {
    dev.transport = dev.name.substr(0, 3);
    dev.kind = DiskKind::network;
  } else if (starts_with(dev.name, "md") || starts_with(dev.name, "dm-")) {
    dev.transport = starts_with(dev.name, "md") ? "md" : "dm";
    dev.members = sys.list(block + "/slaves");
  } else if (starts_with(dev.name, "nvme")) {
    classify_nvme(sys, block, dev);
  } else if (!classify_by_path(path, dev)) {
    classify_by_bus(sys, path, dev);
  }
}

std::optional<int> read_numa_node(const SysfsRoot& sys, const std::string& bdf) {
  const auto node = sys.read_int("/sys/bus/pci/devices/" + bdf + "/numa_node");
  if (!node || *node < 0) return std::nullopt;
  return static_cast<int>(*node);
}

// SCSI peripheral device types (SPC) of drives that hold no training data: 4 write-once,
// 5 CD/DVD. An optical drive without a disc reports a placeholder size (1 GiB on many drives).
bool is_optical(const SysfsRoot& sys, const std::string& name) {
  const auto type = sys.read_int("/sys/block/" + name + "/device/type");
  return type == 4 || type == 5;
}

bool is_skipped(const SysfsRoot& sys, const std::string& name) {
  // Memory- or file-backed (loop, ram, zram), floppies (fd), optical drives (sr, or any SCSI
  // device of an optical type).
  for (const char* prefix : {"loop", "ram", "zram", "fd", "sr"}) {
    if (starts_with(name, prefix)) return true;
  }
  return is_optical(sys, name);
}

BlockDevice read_block_device(const SysfsRoot& sys, const std::string& name) {
  const std::string block = "/sys/block/" + name;
  const std::string path = sys.resolve(block).value_or(block);
  BlockDevice dev;
  dev.name = name;
  dev.model = sys.read_line(block + "/device/model").value_or("");
  dev.vendor = sys.read_line(block + "/device/vendor").value_or("");
  if (const auto sectors = sys.read_int(block + "/size"); sectors && *sectors >= 0) {
    dev.size_bytes = static_cast<std::uint64_t>(*sectors) * 512;  // always 512-byte units
  }
  dev.rotational = sys.read_int(block + "/queue/rotational") == 1;
  if (const auto size = sys.read_int(block + "/queue/logical_block_size"); size && *size > 0) {
    dev.logical_block_size = static_cast<int>(*size);
  }
  dev.pci_bdf = last_bdf(path);
  classify(sys, block, path, dev);
  if (!dev.pci_bdf.empty()) dev.numa_node = read_numa_node(sys, dev.pci_bdf);
  return dev;
}

}  // namespace

std::vector<BlockDevice> read_block_devices(const SysfsRoot& sys) {
  std::vector<BlockDevice> devices;
  for (const auto& name : sys.list("/sys/block")) {
    if (!is_skipped(sys, name)) devices.push_back(read_block_device(sys, name));
  }
  return devices;
}

}  // namespace pipecheck
