// Calls each collector in turn.
#include "inventory/inventory_collect.hpp"

#include "inventory/block_devices.hpp"
#include "core/file_io.hpp"
#include "inventory/gpu_inventory.hpp"
#include "inventory/gpu_topology.hpp"
#include "inventory/host_inventory.hpp"
#include "inventory/software_stack.hpp"

namespace pipecheck {

Inventory collect_inventory(const SysfsRoot& sys, const InventoryOptions& options) {
  Inventory inventory;
  inventory.hostname = host_name();
  inventory.collected_utc = utc_now_iso();
  inventory.cpu = read_cpu_info(sys);
  inventory.memory = read_memory_info(sys);
  inventory.disks = read_block_devices(sys);
  inventory.software = read_software_stack(sys);
  inventory.gpus = read_gpus(sys, inventory.software, inventory.notes, options.cuda);
  inventory.nics = read_nics(sys);
  inventory.topology = read_topology(sys, inventory.gpus, inventory.nics, inventory.notes);
  if (inventory.memory.dimms.empty()) {
    inventory.notes.push_back("memory modules: SMBIOS table not readable (needs root) or empty");
  }
  return inventory;
}

}  // namespace pipecheck
