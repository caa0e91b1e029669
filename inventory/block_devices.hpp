// The block devices of a machine from /sys/block, each classified (NVMe, SATA SSD/HDD, SCSI,
// virtual, network) so the storage ceilings know which disks have a hardware ceiling at all.
#pragma once

#include <vector>

#include "core/inventory.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

// One entry per /sys/block/X, sorted by name. Skipped: loop*, ram*, zram* (memory-backed or
// file-backed, no device of their own), floppies (fd*) and optical drives (sr*, or SCSI type 4
// or 5). SATA disks are told apart from SCSI by the /ataN/ of their path, or on older kernels by
// libata's vendor "ATA" or an AHCI (class 0x0106) controller. Bus ids keep 32-bit domains. Listed with kind unknown: md* and dm-* (transport "md"
// / "dm", members = their slaves), since datasets often live on them but their ceiling is that
// of the members underneath.
std::vector<BlockDevice> read_block_devices(const SysfsRoot& sys);

}  // namespace pipecheck
