// SMBIOS type 17 parsing: populated modules, empty slots, extended sizes and speeds, old
// short records, and damaged tables that must never be read past their end.
#include "inventory/smbios.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "inventory/host_inventory.hpp"

namespace pipecheck {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;

// Builds a raw SMBIOS structure table: each record is a zero-filled formatted area with
// little-endian fields poked in, followed by its string set.
class TableBuilder {
 public:
  TableBuilder& record(int type, int length) {
    start_ = bytes_.size();
    bytes_.resize(start_ + static_cast<std::size_t>(length), '\0');
    bytes_[start_] = static_cast<char>(type);
    bytes_[start_ + 1] = static_cast<char>(length);
    return word(2, static_cast<std::uint32_t>(0x1000 + start_));  // handle
  }
  TableBuilder& byte(std::size_t offset, std::uint32_t value) { return put(offset, value, 1); }
  TableBuilder& word(std::size_t offset, std::uint32_t value) { return put(offset, value, 2); }
  TableBuilder& dword(std::size_t offset, std::uint32_t value) { return put(offset, value, 4); }
  // Closes the record with its strings ("\0\0" when there are none).
  TableBuilder& strings(const std::vector<std::string>& texts) {
    for (const auto& text : texts) bytes_ += text + '\0';
    if (texts.empty()) bytes_ += '\0';
    bytes_ += '\0';
    return *this;
  }
  TableBuilder& end_of_table() { return record(127, 4).strings({}); }
  const std::string& bytes() const { return bytes_; }

 private:
  TableBuilder& put(std::size_t offset, std::uint32_t value, int width) {
    for (int i = 0; i < width; ++i) bytes_[start_ + offset + i] = static_cast<char>(value >> (8 * i));
    return *this;
  }
  std::string bytes_;
  std::size_t start_ = 0;
};

// A type 17 record of SMBIOS 3.0 length (0x28) with the usual fields set.
TableBuilder& memory_device(TableBuilder& table, const std::string& locator, std::uint32_t size_word,
                            std::uint32_t speed, std::uint32_t configured, int type_byte) {
  return table.record(17, 0x28)
      .word(0x08, 72)   // total width, ECC included
      .word(0x0A, 64)   // data width
      .word(0x0C, size_word)
      .byte(0x10, 1)    // device locator: string 1
      .byte(0x11, 2)    // bank locator: string 2
      .byte(0x12, static_cast<std::uint32_t>(type_byte))
      .word(0x15, speed)
      .word(0x20, configured)
      .strings({locator, "P0 CHANNEL A"});
}

TableBuilder bios_record(TableBuilder table) {
  return table.record(0, 0x18).byte(0x04, 1).strings({"American Megatrends Inc."});
}

TEST(Smbios, ParsesPopulatedDdr5Module) {
  TableBuilder table = bios_record({});
  memory_device(table, "DIMM_A1", 16384, 5600, 4800, 0x22).end_of_table();
  const auto dimms = parse_smbios_memory_devices(table.bytes());
  ASSERT_EQ(dimms.size(), 1u);
  EXPECT_EQ(dimms[0].locator, "DIMM_A1");
  EXPECT_EQ(dimms[0].size_bytes, 16 * kGiB);
  EXPECT_EQ(dimms[0].speed_mts, 4800);       // configured, not the rated 5600
  EXPECT_EQ(dimms[0].data_width_bits, 64);   // data width, not the 72-bit total width
  EXPECT_EQ(dimms[0].type, "DDR5");
}

TEST(Smbios, SkipsEmptySlots) {
  TableBuilder table;
  memory_device(table, "DIMM_A1", 0, 0, 0, 0x02);
  memory_device(table, "DIMM_B1", 8192, 3200, 3200, 0x1A).end_of_table();
  const auto dimms = parse_smbios_memory_devices(table.bytes());
  ASSERT_EQ(dimms.size(), 1u);
  EXPECT_EQ(dimms[0].locator, "DIMM_B1");
  EXPECT_EQ(dimms[0].size_bytes, 8 * kGiB);
  EXPECT_EQ(dimms[0].type, "DDR4");
}

TEST(Smbios, ReadsExtendedAndKilobyteSizes) {
  TableBuilder table;
  memory_device(table, "DIMM_A1", 0x7FFF, 4800, 4800, 0x22);
  table.end_of_table();
  // The extended size dword (0x1C) lies inside the 0x28-byte record; poke it afterwards.
  std::string bytes = table.bytes();
  const std::uint32_t mib = 65536;
  for (int i = 0; i < 4; ++i) bytes[0x1C + i] = static_cast<char>(mib >> (8 * i));
  TableBuilder small;
  memory_device(small, "CACHE", 0x8000 | 512, 0, 0, 0x07).end_of_table();

  const auto big = parse_smbios_memory_devices(bytes);
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(big[0].size_bytes, 64 * kGiB);
  const auto kib = parse_smbios_memory_devices(small.bytes());
  ASSERT_EQ(kib.size(), 1u);
  EXPECT_EQ(kib[0].size_bytes, 512u * 1024);
  EXPECT_FALSE(kib[0].speed_mts.has_value());  // 0 means unknown
}

TEST(Smbios, FallsBackToRatedSpeed) {
  // SMBIOS 2.3 record (length 0x1B): no configured speed field at all.
  TableBuilder old;
  old.record(17, 0x1B).word(0x0A, 64).word(0x0C, 8192).byte(0x10, 1).byte(0x12, 0x18)
      .word(0x15, 1600).strings({"DIMM0"}).end_of_table();
  // A 3.0 record whose configured speed is 0 (unknown).
  TableBuilder unknown;
  memory_device(unknown, "DIMM1", 8192, 2666, 0, 0x1A).end_of_table();

  const auto a = parse_smbios_memory_devices(old.bytes());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].speed_mts, 1600);
  EXPECT_EQ(a[0].type, "DDR3");
  const auto b = parse_smbios_memory_devices(unknown.bytes());
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].speed_mts, 2666);
}

TEST(Smbios, ReadsExtendedConfiguredSpeed) {
  TableBuilder table;
  table.record(17, 0x5C).word(0x0A, 64).word(0x0C, 16384).byte(0x10, 1)
      .byte(0x12, 0x22).word(0x15, 0xFFFF).word(0x20, 0xFFFF).dword(0x54, 9600)
      .dword(0x58, 8800).strings({"DIMM_X"}).end_of_table();
  const auto dimms = parse_smbios_memory_devices(table.bytes());
  ASSERT_EQ(dimms.size(), 1u);
  EXPECT_EQ(dimms[0].speed_mts, 8800);
}

TEST(Smbios, UnknownWidthAndMissingStringStayEmpty) {
  TableBuilder table;
  table.record(17, 0x28).word(0x0A, 0xFFFF).word(0x0C, 4096).byte(0x10, 5).byte(0x12, 0x02)
      .strings({"only one string"}).end_of_table();
  const auto dimms = parse_smbios_memory_devices(table.bytes());
  ASSERT_EQ(dimms.size(), 1u);
  EXPECT_EQ(dimms[0].locator, "");
  EXPECT_FALSE(dimms[0].data_width_bits.has_value());
  EXPECT_EQ(dimms[0].type, "");
}

TEST(Smbios, MemoryTypeNames) {
  EXPECT_EQ(smbios_memory_type_name(0x1A), "DDR4");
  EXPECT_EQ(smbios_memory_type_name(0x22), "DDR5");
  EXPECT_EQ(smbios_memory_type_name(0x23), "LPDDR5");
  EXPECT_EQ(smbios_memory_type_name(0x24), "HBM3");
  EXPECT_EQ(smbios_memory_type_name(0x02), "");
  EXPECT_EQ(smbios_memory_type_name(0x25), "");
  EXPECT_EQ(smbios_memory_type_name(-1), "");
}

TEST(Smbios, TruncatedTablesNeverReadPastTheEnd) {
  TableBuilder table = bios_record({});
  memory_device(table, "DIMM_A1", 16384, 5600, 4800, 0x22);
  memory_device(table, "DIMM_B1", 16384, 5600, 4800, 0x22).end_of_table();
  const std::string& full = table.bytes();
  ASSERT_EQ(parse_smbios_memory_devices(full).size(), 2u);
  const std::size_t first_dimm_end = full.find("P0 CHANNEL A") + 13;
  for (std::size_t length = 0; length <= full.size(); ++length) {
    // An exact-size heap copy, so that a sanitizer build catches any read past the end.
    std::vector<char> prefix(full.begin(), full.begin() + static_cast<long>(length));
    const auto dimms = parse_smbios_memory_devices(std::string_view(prefix.data(), prefix.size()));
    EXPECT_LE(dimms.size(), 2u);
    if (length < first_dimm_end) {
      EXPECT_TRUE(dimms.empty()) << "length " << length;
    }
  }
}

TEST(Smbios, StopsAtRecordsClaimingMoreThanIsLeft) {
  TableBuilder table;
  memory_device(table, "DIMM_A1", 16384, 5600, 4800, 0x22);
  std::string bytes = table.bytes();
  bytes += std::string("\x11\xF0\x00\x10", 4);  // a type 17 header claiming 240 bytes
  bytes += std::string(16, '\0');
  EXPECT_EQ(parse_smbios_memory_devices(bytes).size(), 1u);
  EXPECT_TRUE(parse_smbios_memory_devices(std::string("\x11\x02\x00\x00", 4)).empty());
}

TEST(Smbios, ReadsTheTableUnderASysfsRoot) {
  const auto root = std::filesystem::temp_directory_path() /
                    ("pipecheck-smbios-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "sys/firmware/dmi/tables");
  std::filesystem::create_directories(root / "proc");
  TableBuilder table = bios_record({});
  memory_device(table, "DIMM_A1", 16384, 5600, 4800, 0x22);
  memory_device(table, "DIMM_A2", 0, 0, 0, 0x02);
  memory_device(table, "DIMM_B1", 16384, 5600, 4800, 0x22).end_of_table();
  std::ofstream(root / "sys/firmware/dmi/tables/DMI", std::ios::binary) << table.bytes();
  std::ofstream(root / "proc/meminfo") << "MemTotal:       32768000 kB\nMemFree: 1 kB\n";

  const MemoryInfo memory = read_memory_info(SysfsRoot(root));
  std::filesystem::remove_all(root);
  EXPECT_EQ(memory.total_bytes, 32768000ull * 1024);
  ASSERT_EQ(memory.dimms.size(), 2u);
  EXPECT_EQ(memory.dimms[1].locator, "DIMM_B1");
  EXPECT_FALSE(memory.memory_channels.has_value());  // never inferred from DIMM count
}

TEST(Smbios, MissingTableGivesNoModules) {
  EXPECT_TRUE(read_smbios_memory_devices(SysfsRoot("/nonexistent-pipecheck-root")).empty());
  const SmbiosMemory none = read_smbios_memory(SysfsRoot("/nonexistent-pipecheck-root"));
  EXPECT_EQ(none.why_none, "no SMBIOS table in the recorded tree (/sys/firmware/dmi/tables/DMI)");
}

// Kernels whose firmware table file is absent still list each structure under dmi-sysfs:
// /sys/firmware/dmi/entries/<type>-<instance>/raw, the structure with its strings.
TEST(Smbios, ReadsTheEntriesWhenTheTableIsAbsent) {
  const auto root = std::filesystem::temp_directory_path() / ("pipecheck-smbios-entries-" + std::to_string(::getpid()));
  const auto entries = root / "sys/firmware/dmi/entries";
  auto write_entry = [&](const std::string& name, const TableBuilder& record) {
    std::filesystem::create_directories(entries / name);
    std::ofstream(entries / name / "raw", std::ios::binary) << record.bytes();
  };
  TableBuilder a1, empty_slot, b1, bios;
  memory_device(a1, "DIMM_A1", 0x7FFF, 4800, 4800, 0x22).dword(0x1C, 32768);  // 32 GiB: extended size
  memory_device(empty_slot, "DIMM_A2", 0, 0, 0, 0x02);
  memory_device(b1, "DIMM_B1", 16384, 4800, 4400, 0x22);
  write_entry("17-0", a1);
  write_entry("17-1", empty_slot);
  write_entry("17-2", b1);
  write_entry("0-0", bios_record({}));  // not a memory device: not read

  const SmbiosMemory memory = read_smbios_memory(SysfsRoot(root));
  std::filesystem::remove_all(root);
  ASSERT_EQ(memory.dimms.size(), 2u);
  EXPECT_EQ(memory.dimms[0].locator, "DIMM_A1");
  EXPECT_EQ(memory.dimms[0].size_bytes, 32 * kGiB);
  EXPECT_EQ(memory.dimms[1].locator, "DIMM_B1");
  EXPECT_EQ(memory.dimms[1].speed_mts, std::optional<int>(4400));
  EXPECT_EQ(memory.source, "/sys/firmware/dmi/entries/17-*/raw");
}

TEST(Smbios, SaysWhyTheTableIsUnreadable) {
  EXPECT_EQ(smbios_unreadable_reason(EACCES, true, false), "SMBIOS table readable by root only: run as root to list the DIMMs");
  // As root "needs root" would be false: the table is kept away.
  const std::string as_root = smbios_unreadable_reason(EACCES, true, true);
  EXPECT_EQ(as_root.find("root only"), std::string::npos);
  EXPECT_NE(as_root.find("even as root"), std::string::npos);
  EXPECT_NE(as_root.find("container"), std::string::npos);
  EXPECT_NE(smbios_unreadable_reason(ENOENT, true, true).find("no SMBIOS table"), std::string::npos);
  EXPECT_NE(smbios_unreadable_reason(ENOENT, false, true).find("recorded tree"), std::string::npos);
}

}  // namespace
}  // namespace pipecheck
