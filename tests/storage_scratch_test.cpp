// The storage probe's scratch file: pattern, sizes, and that it never stays on disk.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "core/errors.hpp"
#include "storage/storage_scratch.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(StorageScratch, PatternRoundTripsAndCatchesDamage) {
  std::vector<unsigned char> data(3 * kPatternBlock);
  fill_pattern(data.data(), 8192, data.size(), 42);
  EXPECT_TRUE(check_pattern(data.data(), 8192, data.size(), 42, true));
  EXPECT_FALSE(check_pattern(data.data(), 4096, data.size(), 42, false));  // misplaced block
  EXPECT_FALSE(check_pattern(data.data(), 8192, data.size(), 43, false));  // another file
  data[100] ^= 1;  // inside a block body: only the full check sees it
  EXPECT_TRUE(check_pattern(data.data(), 8192, data.size(), 42, false));
  EXPECT_FALSE(check_pattern(data.data(), 8192, data.size(), 42, true));
}

// One flipped byte anywhere in a read is caught by the full check, with the word's file offset
// and both values named; in a block header even the headers-only check catches it.
TEST(StorageScratch, FlippedByteIsCaughtAndNamed) {
  std::vector<unsigned char> data(4 * kPatternBlock);
  const std::uint64_t offset = 3 * kPatternBlock;
  for (std::size_t at = 0; at < data.size(); at += 1001) {
    fill_pattern(data.data(), offset, data.size(), 5);
    ASSERT_FALSE(find_pattern_mismatch(data.data(), offset, data.size(), 5, true));
    data[at] ^= 0x04;
    const auto mismatch = find_pattern_mismatch(data.data(), offset, data.size(), 5, true);
    ASSERT_TRUE(mismatch) << "byte " << at;
    EXPECT_EQ(mismatch->offset, offset + at / 8 * 8);
    EXPECT_NE(mismatch->found, mismatch->expected);
    const bool header = at % kPatternBlock < 16;
    EXPECT_EQ(find_pattern_mismatch(data.data(), offset, data.size(), 5, false).has_value(), header) << at;
  }
  fill_pattern(data.data(), offset, data.size(), 5);
  data[kPatternBlock + 2] ^= 0x80;  // the second block's offset word
  const std::string text = describe(*find_pattern_mismatch(data.data(), offset, data.size(), 5, false));
  EXPECT_EQ(text.rfind("offset 16384: read 0x", 0), 0u) << text;
  EXPECT_NE(text.find("the pattern holds 0x0000000000004000 (block header: a misplaced or stale block)"),
            std::string::npos) << text;
}

TEST(StorageScratch, PatternOfAReadStartingMidBlock) {
  std::vector<unsigned char> whole(2 * kPatternBlock);
  fill_pattern(whole.data(), 0, whole.size(), 9);
  // A 512-byte-aligned read that starts inside the first block.
  EXPECT_TRUE(check_pattern(whole.data() + 512, 512, whole.size() - 512, 9, true));
  whole[kPatternBlock] ^= 0xff;  // the second block's header
  EXPECT_FALSE(check_pattern(whole.data() + 512, 512, whole.size() - 512, 9, false));
}

TEST(StorageScratch, ParseSize) {
  EXPECT_EQ(parse_size("file-size", "4096"), 4096u);
  EXPECT_EQ(parse_size("file-size", "128K"), 131072u);
  EXPECT_EQ(parse_size("file-size", "256M"), 256u << 20);
  EXPECT_EQ(parse_size("file-size", "1G"), 1ull << 30);
  for (const char* bad : {"", "abc", "0", "12X", "-1M"}) {
    EXPECT_THROW(parse_size("file-size", bad), UsageError) << bad;
  }
}

TEST(StorageScratch, SizeIsCutToHalfTheFreeSpace) {
  const std::uint64_t mib = 1 << 20;
  EXPECT_EQ(scratch_size_for(1024 * mib, 100000 * mib), 1024 * mib);
  EXPECT_EQ(scratch_size_for(1024 * mib, 1000 * mib), 500 * mib);
  EXPECT_EQ(scratch_size_for(1024 * mib, 20 * mib), 0u);  // would leave the disk nearly full
}

TEST(StorageScratch, NoNameLeftOnDiskAndContentVerified) {
  const fs::path dir = fresh_dir("scratch");
  {
    auto file = ScratchFile::create(dir.string(), 16 << 20, 77);
    EXPECT_TRUE(fs::is_empty(dir)) << "the name must be gone while the file is in use";
    ASSERT_EQ(file->size(), 16u << 20);
    std::vector<unsigned char> block(kPatternBlock);
    ASSERT_EQ(pread(file->buffered_fd(), block.data(), block.size(), 5 << 20),
              static_cast<ssize_t>(block.size()));
    EXPECT_TRUE(check_pattern(block.data(), 5 << 20, block.size(), 77, true));
  }
  EXPECT_TRUE(fs::is_empty(dir));
  fs::remove_all(dir);
}

TEST(StorageScratch, BadDirectoryIsAUsageErrorNamingIt) {
  try {
    ScratchFile::create("/nonexistent/pipecheck-dir", 16 << 20, 1);
    FAIL() << "expected UsageError";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/pipecheck-dir"), std::string::npos);
  }
}

}  // namespace
}  // namespace pipecheck
