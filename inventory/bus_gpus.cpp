// NVIDIA display-class PCI functions from sysfs, with their bound driver.
#include "inventory/bus_gpus.hpp"

#include <filesystem>

namespace pipecheck {

std::vector<BusGpu> read_bus_gpus(const SysfsRoot& sys) {
  std::vector<BusGpu> gpus;
  const std::string devices = "/sys/bus/pci/devices";
  for (const std::string& bdf : sys.list(devices)) {
    const std::string dir = devices + "/" + bdf;
    const auto vendor = sys.read_line(dir + "/vendor");
    const auto pci_class = sys.read_line(dir + "/class");
    if (!vendor || !pci_class || *vendor != "0x10de") continue;
    // class is 0xCCSSPP: base class 03 display, subclass 00 VGA or 02 3D controller.
    if (pci_class->rfind("0x0300", 0) != 0 && pci_class->rfind("0x0302", 0) != 0) continue;
    BusGpu gpu;
    gpu.bus_id = bdf;
    if (const auto driver = sys.resolve(dir + "/driver")) {
      gpu.driver = std::filesystem::path(*driver).filename().string();
    }
    gpus.push_back(gpu);
  }
  return gpus;
}

}  // namespace pipecheck
