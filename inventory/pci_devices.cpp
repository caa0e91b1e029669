// Walking /sys/bus/pci/devices and joining it with hwloc's PCI tree.
#include "inventory/pci_devices.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "inventory/cpu_list.hpp"
#include "inventory/gpu_inventory.hpp"
#include "inventory/gpu_topology.hpp"
#include "inventory/pcie_link.hpp"

namespace pipecheck {

namespace {

constexpr const char* kPciDevices = "/sys/bus/pci/devices/";
constexpr unsigned kNvidiaVendor = 0x10de;

unsigned read_hex(const SysfsRoot& sys, const std::string& file) {
  const auto value = sys.read_int(file);  // "0x030200": base 0 reads the prefix
  return value && *value >= 0 ? static_cast<unsigned>(*value) : 0;
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

int count_bridges(const std::vector<std::string>& upstream) {
  return static_cast<int>(std::count_if(upstream.begin(), upstream.end(), [](const std::string& hop) { return hop.rfind("pci", 0) != 0; }));
}

}  // namespace

PciDevice read_pci_device_sysfs(const SysfsRoot& sys, const std::string& bdf) {
  const std::string dir = kPciDevices + bdf;
  PciDevice device;
  device.bdf = bdf;
  device.vendor_id = read_hex(sys, dir + "/vendor");
  device.device_id = read_hex(sys, dir + "/device");
  device.class_code = read_hex(sys, dir + "/class");
  device.kind = pci_kind_of_class(device.class_code);
  if (const auto driver = sys.resolve(dir + "/driver")) device.driver = base_name(*driver);
  if (const auto node = sys.read_int(dir + "/numa_node"); node && *node >= 0) device.numa_node = static_cast<int>(*node);
  if (const auto list = sys.read_line(dir + "/local_cpulist")) {
    if (const auto cpus = cpu_set_from_list(*list)) device.local_cpus = format_cpu_list(*cpus);
  } else if (const auto mask = sys.read_line(dir + "/local_cpus")) {
    if (const auto cpus = cpu_set_from_mask(*mask)) device.local_cpus = format_cpu_list(*cpus);
  }
  device.link = read_pcie_link(sys, bdf);
  device.upstream = pci_ancestors(sys, bdf);
  device.source = "sysfs";
  return device;
}

std::vector<PciDevice> read_pci_devices(const SysfsRoot& sys, const HwlocTopology& hwloc) {
  std::map<std::string, const PciDevice*> from_hwloc;
  for (const PciDevice& device : hwloc.pci) from_hwloc[normalize_bdf(device.bdf).value_or(device.bdf)] = &device;
  std::vector<PciDevice> devices;
  for (const std::string& name : sys.list(kPciDevices)) {
    PciDevice device = read_pci_device_sysfs(sys, name);
    const auto known = from_hwloc.find(normalize_bdf(name).value_or(name));
    if (known != from_hwloc.end()) {
      const PciDevice& h = *known->second;
      if (device.kind.empty()) device.kind = h.kind;
      if (device.class_code == 0) device.class_code = h.class_code;
      // hwloc's tree, unless it saw fewer bridges than the kernel's path (no config space).
      if (count_bridges(h.upstream) >= count_bridges(device.upstream)) device.upstream = h.upstream;
      device.link_gbps = h.link_gbps;
      if (!device.numa_node) device.numa_node = h.numa_node;
      if (device.local_cpus.empty()) device.local_cpus = h.local_cpus;
      device.source = "hwloc";
      from_hwloc.erase(known);
    }
    if (!device.kind.empty()) devices.push_back(device);
  }
  for (const auto& [bdf, device] : from_hwloc) devices.push_back(*device);
  std::sort(devices.begin(), devices.end(), [](const PciDevice& a, const PciDevice& b) { return a.bdf < b.bdf; });
  return devices;
}

std::vector<GpuInfo> nvidia_gpus_on_bus(const SysfsRoot& sys, const std::vector<PciDevice>& pci) {
  std::vector<GpuInfo> gpus;
  for (const PciDevice& device : pci) {
    if (device.vendor_id != kNvidiaVendor || device.kind != "gpu") continue;
    GpuInfo gpu;
    gpu.pci_bdf = normalize_bdf(device.bdf).value_or(device.bdf);
    gpu.seen_by = {"pci"};
    gpu.pci_driver = device.driver;
    gpu.pci_device_id = device.device_id;
    char name[48];
    std::snprintf(name, sizeof name, "NVIDIA GPU [10de:%04x]", device.device_id);
    gpu.name = name;
    gpu.numa_node = device.numa_node;
    gpus.push_back(gpu);
  }
  add_sysfs_gpu_facts(sys, gpus);
  return gpus;
}

}  // namespace pipecheck
