// SMBIOS type 17 (Memory Device) parsing, after DMTF DSP0134 3.x. Every field is read through
// a bounds check against the record's own length, since firmware tables are often short or
// older-version records.
#include "inventory/smbios.hpp"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>

namespace pipecheck {

namespace {

constexpr int kMemoryDeviceType = 17;
constexpr int kEndOfTableType = 127;
constexpr std::size_t kHeaderBytes = 4;  // type, length, handle

// One structure: the formatted area (its length is the header's length byte) and the string
// set that follows it ("a\0b\0", empty when the record has no strings).
struct Record {
  std::string_view formatted;
  std::string_view strings;
};

// Little-endian field of `width` bytes at `offset`, or nullopt when the record is too short
// to hold it (an older SMBIOS version, or damage).
std::optional<std::uint32_t> field(std::string_view record, std::size_t offset,
                                   std::size_t width) {
  if (offset + width > record.size()) return std::nullopt;
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= static_cast<std::uint32_t>(static_cast<unsigned char>(record[offset + i])) << (8 * i);
  }
  return value;
}

// String number `index` (1-based; 0 means "none") of a record's string set.
std::string string_at(const Record& record, std::optional<std::uint32_t> index) {
  if (!index || *index == 0) return "";
  std::string_view rest = record.strings;
  for (std::uint32_t i = 1; !rest.empty(); ++i) {
    const auto end = rest.find('\0');
    const std::string_view text = rest.substr(0, end);
    if (i == *index) return trim(std::string(text));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  return "";
}

// Splits the table into records; stops at the end-of-table record or at the first record
// that does not fit in what is left.
std::vector<std::pair<int, Record>> split_records(std::string_view table) {
  std::vector<std::pair<int, Record>> records;
  std::size_t pos = 0;
  while (pos + kHeaderBytes <= table.size()) {
    const int type = static_cast<unsigned char>(table[pos]);
    const std::size_t length = static_cast<unsigned char>(table[pos + 1]);
    if (length < kHeaderBytes || pos + length > table.size()) break;
    const auto strings_end = table.find(std::string_view("\0\0", 2), pos + length);
    if (strings_end == std::string_view::npos) break;
    const std::string_view strings = strings_end == pos + length
                                         ? std::string_view()
                                         : table.substr(pos + length, strings_end + 1 - pos - length);
    records.push_back({type, Record{table.substr(pos, length), strings}});
    if (type == kEndOfTableType) break;
    pos = strings_end + 2;
  }
  return records;
}

// Size in bytes; 0 when the slot is empty or the size is unknown (0xFFFF). The caller tells
// the two apart through the raw word.
std::uint64_t module_bytes(std::string_view record, std::uint32_t size_word) {
  constexpr std::uint64_t kib = 1024;
  constexpr std::uint64_t mib = 1024 * 1024;
  if (size_word == 0xFFFF) return 0;
  if (size_word == 0x7FFF) {
    // Modules of 32 GiB and more: the size moved to the Extended Size dword, in MiB.
    const auto extended = field(record, 0x1C, 4);
    return extended ? (*extended & 0x7FFFFFFFu) * mib : 0;
  }
  if (size_word & 0x8000) return (size_word & 0x7FFF) * kib;
  return size_word * mib;
}

// A speed word (0 = unknown, 0xFFFF = "see the extended dword", SMBIOS 3.3+).
std::optional<int> speed_at(std::string_view record, std::size_t word_offset,
                            std::size_t dword_offset) {
  const auto word = field(record, word_offset, 2);
  if (!word || *word == 0) return std::nullopt;
  if (*word != 0xFFFF) return static_cast<int>(*word);
  const auto extended = field(record, dword_offset, 4);
  if (!extended || (*extended & 0x7FFFFFFFu) == 0) return std::nullopt;
  return static_cast<int>(*extended & 0x7FFFFFFFu);
}

std::optional<DimmInfo> parse_memory_device(const Record& record) {
  const std::string_view data = record.formatted;
  const auto size_word = field(data, 0x0C, 2);
  if (!size_word || *size_word == 0) return std::nullopt;  // empty slot, or no size at all
  DimmInfo dimm;
  dimm.locator = string_at(record, field(data, 0x10, 1));
  dimm.size_bytes = module_bytes(data, *size_word);
  // The configured speed is what the memory controller runs; the rated speed only when the
  // firmware does not say (SMBIOS before 2.7).
  dimm.speed_mts = speed_at(data, 0x20, 0x58);
  if (!dimm.speed_mts) dimm.speed_mts = speed_at(data, 0x15, 0x54);
  if (const auto width = field(data, 0x0A, 2); width && *width != 0 && *width != 0xFFFF) {
    dimm.data_width_bits = static_cast<int>(*width);
  }
  if (const auto type = field(data, 0x12, 1)) dimm.type = smbios_memory_type_name(*type);
  return dimm;
}

}  // namespace

std::string smbios_memory_type_name(int type_byte) {
  // DSP0134 table "Memory Device - Type", indexed by the byte; "" for Other (0x01),
  // Unknown (0x02) and reserved values, so that no type is guessed.
  static constexpr std::array<const char*, 0x25> names = {
      "",       "",       "",       "DRAM",   "EDRAM",  "VRAM",   "SRAM",   "RAM",
      "ROM",    "Flash",  "EEPROM", "FEPROM", "EPROM",  "CDRAM",  "3DRAM",  "SDRAM",
      "SGRAM",  "RDRAM",  "DDR",    "DDR2",   "DDR2 FB-DIMM",     "",       "",
      "",       "DDR3",   "FBD2",   "DDR4",   "LPDDR",  "LPDDR2", "LPDDR3", "LPDDR4",
      "Logical non-volatile device", "HBM",  "HBM2",   "DDR5",   "LPDDR5", "HBM3"};
  if (type_byte < 0 || type_byte >= static_cast<int>(names.size())) return "";
  return names[static_cast<std::size_t>(type_byte)];
}

std::vector<DimmInfo> parse_smbios_memory_devices(std::string_view table) {
  std::vector<DimmInfo> dimms;
  for (const auto& [type, record] : split_records(table)) {
    if (type != kMemoryDeviceType) continue;
    if (auto dimm = parse_memory_device(record)) dimms.push_back(std::move(*dimm));
  }
  return dimms;
}

namespace {

constexpr const char* kTable = "/sys/firmware/dmi/tables/DMI";
constexpr const char* kEntries = "/sys/firmware/dmi/entries";

// The whole file, or the errno of the failed open or read.
std::optional<std::string> read_file(const SysfsRoot& sys, const std::string& system_path, int& error) {
  errno = 0;
  std::FILE* file = std::fopen(sys.path(system_path).c_str(), "rb");
  if (!file) {
    error = errno;
    return std::nullopt;
  }
  std::string bytes;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) bytes.append(buffer, n);
  error = std::ferror(file) ? (errno ? errno : EIO) : 0;
  std::fclose(file);
  if (error) return std::nullopt;
  return bytes;
}

// The raw type 17 structures of the dmi-sysfs entries, one after the other as in a table.
std::optional<std::string> read_entries(const SysfsRoot& sys, int& error) {
  std::string table;
  bool any = false;
  for (const auto& name : sys.list(kEntries)) {
    if (name.rfind("17-", 0) != 0) continue;
    int entry_error = 0;
    const auto raw = read_file(sys, std::string(kEntries) + "/" + name + "/raw", entry_error);
    if (!raw) {
      error = entry_error;
      continue;
    }
    any = true;
    table += *raw;
  }
  if (!any) return std::nullopt;
  return table;
}

}  // namespace

std::string smbios_unreadable_reason(int error, bool live, bool running_as_root) {
  if (!live) {
    return error == ENOENT ? "no SMBIOS table in the recorded tree (" + std::string(kTable) + ")"
                           : "the recorded tree's SMBIOS table is unreadable: " + std::string(std::strerror(error));
  }
  if (error == ENOENT) {
    return "no SMBIOS table (" + std::string(kTable) + " absent: a VM or a board without SMBIOS)";
  }
  if (error == EACCES || error == EPERM) {
    if (!running_as_root) return "SMBIOS table readable by root only: run as root to list the DIMMs";
    return "SMBIOS table unreadable even as root (" + std::string(std::strerror(error)) +
           "): a container without /sys/firmware access, or a security module (SELinux, AppArmor)";
  }
  return "SMBIOS table unreadable: " + std::string(std::strerror(error));
}

SmbiosMemory read_smbios_memory(const SysfsRoot& sys) {
  SmbiosMemory result;
  int table_error = 0;
  if (const auto table = read_file(sys, kTable, table_error)) {
    result.source = kTable;
    result.dimms = parse_smbios_memory_devices(*table);
    if (result.dimms.empty()) result.why_none = "the SMBIOS table lists no populated memory device";
    return result;
  }
  int entries_error = ENOENT;
  if (const auto entries = read_entries(sys, entries_error)) {
    result.source = std::string(kEntries) + "/17-*/raw";
    result.dimms = parse_smbios_memory_devices(*entries);
    if (result.dimms.empty()) result.why_none = "the SMBIOS entries list no populated memory device";
    return result;
  }
  result.why_none = smbios_unreadable_reason(table_error == ENOENT ? entries_error : table_error, sys.is_live(),
                                            ::geteuid() == 0);
  return result;
}

std::vector<DimmInfo> read_smbios_memory_devices(const SysfsRoot& sys) { return read_smbios_memory(sys).dimms; }

}  // namespace pipecheck
