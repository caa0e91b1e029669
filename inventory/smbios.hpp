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

struct SmbiosMemory {
  std::vector<DimmInfo> dimms;
  std::string source;   // the file(s) read: "/sys/firmware/dmi/tables/DMI" or the entries
  std::string why_none;  // why dimms is empty, in words (never "needs root" when running as root)
};

// The memory modules from /sys/firmware/dmi/tables/DMI under `sys`, else from the dmi-sysfs
// entries /sys/firmware/dmi/entries/17-*/raw (one type 17 structure each, older kernels and
// some firmware only have these). Without modules `why_none` says which: no table at all (a
// VM or a board without SMBIOS), readable by root only, unreadable even as root (a container
// or a security module), not in a recorded tree, or no populated module listed.
SmbiosMemory read_smbios_memory(const SysfsRoot& sys);
// Why the table could not be read, for an errno of opening it: ENOENT no table, EACCES readable
// by root only (or, running as root, kept away by a container or a security module).
std::string smbios_unreadable_reason(int error, bool live, bool running_as_root);
std::vector<DimmInfo> read_smbios_memory_devices(const SysfsRoot& sys);

}  // namespace pipecheck
