// Calls each collector in turn. On a recorded tree only the tree is read: no CUDA, NVML or NCCL
// call, no uname, no environment, no live CPU count; the GPUs are those on the tree's PCI bus.
#include "inventory/inventory_collect.hpp"

#include <filesystem>

#include "core/cpu_allowance.hpp"
#include "core/file_io.hpp"
#include "inventory/block_devices.hpp"
#include "inventory/cpu_list.hpp"
#include "inventory/gpu_inventory.hpp"
#include "inventory/gpu_topology.hpp"
#include "inventory/host_inventory.hpp"
#include "inventory/hwloc_topology.hpp"
#include "inventory/pci_devices.hpp"
#include "inventory/software_stack.hpp"

namespace pipecheck {

namespace {

// The affinity of the process that recorded the tree: Cpus_allowed_list of its /proc/self/status.
int recorded_affinity(const SysfsRoot& sys) {
  const auto status = sys.read("/proc/self/status");
  if (!status) return 0;
  const auto at = status->find("Cpus_allowed_list:");
  if (at == std::string::npos) return 0;
  const auto end = status->find('\n', at);
  const auto cpus = cpu_set_from_list(status->substr(at + 18, end == std::string::npos ? std::string::npos : end - at - 18));
  return cpus ? static_cast<int>(cpus->size()) : 0;
}

void note_allowance(const Inventory& inventory, std::vector<std::string>& notes) {
  const CpuAllowance& allowance = inventory.cpu_allowance;
  if (!allowance.limited()) return;
  notes.push_back("this process may use " + allowance.describe() +
                  ": the probes' default thread counts follow the usable CPUs, not the machine's");
}

}  // namespace

Inventory collect_inventory(const SysfsRoot& sys, const InventoryOptions& options) {
  Inventory inventory;
  const bool live = sys.is_live();
  std::vector<std::string>& notes = inventory.notes;
  if (!live) inventory.recorded_root = std::filesystem::absolute(sys.root()).lexically_normal().string();
  inventory.hostname = live ? host_name() : recorded_hostname(sys);
  inventory.collected_utc = utc_now_iso();
  const HwlocTopology hwloc = load_hwloc_topology(sys);
  inventory.cpu = read_cpu_info(sys, hwloc, notes);
  inventory.cpu_allowance = live ? live_cpu_allowance() : read_cpu_allowance(sys, recorded_affinity(sys));
  note_allowance(inventory, notes);
  inventory.memory = read_memory_info(sys, hwloc, notes);
  inventory.disks = read_block_devices(sys);
  inventory.pci = read_pci_devices(sys, hwloc);
  inventory.software = read_software_stack(sys);
  const std::vector<GpuInfo> on_bus = nvidia_gpus_on_bus(sys, inventory.pci);
  if (live) {
    inventory.gpus = read_gpus(sys, on_bus, inventory.software, notes, options.cuda);
  } else {
    inventory.gpus = on_bus;
    notes.push_back("recorded tree " + inventory.recorded_root +
                    ": GPUs are those on its PCI bus (seen on the bus); CUDA, NVML and NCCL were not asked");
  }
  inventory.nics = read_nics(sys);
  inventory.topology = live ? read_topology(sys, inventory.gpus, inventory.nics, inventory.pci, notes)
                            : derive_topology(sys, inventory.gpus, inventory.nics, inventory.pci);
  return inventory;
}

}  // namespace pipecheck
