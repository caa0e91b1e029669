// The memory modules of a machine from its raw SMBIOS table (/sys/firmware/dmi/tables/DMI,
// readable by root only): SMBIOS type 17 "Memory Device" records.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/inventory.hpp"
#include "core/sysfs.hpp"

namespace pipecheck {

// SMBIOS memory type byte (type 17, offset 0x12) -> "DDR4", "DDR5", "LPDDR5", "HBM3", ...;
// "" for Other/Unknown/reserved values.
std::string smbios_memory_type_name(int type_byte);

// The populated memory devices of a raw SMBIOS structure table. Empty slots (size 0) are
// skipped. A truncated or malformed table yields the records that were complete before the
// damage; nothing is read past the end of `table`.
std::vector<DimmInfo> parse_smbios_memory_devices(std::string_view table);

// Reads /sys/firmware/dmi/tables/DMI under `sys`; empty when it is missing or unreadable
// (not root, a VM without SMBIOS, a non-x86 board without DMI).
std::vector<DimmInfo> read_smbios_memory_devices(const SysfsRoot& sys);

}  // namespace pipecheck
