// The storage probe's own test file: filled with a known pattern through O_DIRECT (so it is
// not in the page cache), and never left behind, even on Ctrl-C or kill -9.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace pipecheck {

// Pattern: every 4 KiB block starts with two words, its file offset and the seed; the other
// words are a hash of (seed, offset of the word). Any misplaced or stale block shows.
constexpr std::size_t kPatternBlock = 4096;
void fill_pattern(unsigned char* data, std::uint64_t offset, std::size_t length,
                  std::uint64_t seed);
// The first word of a region read at `offset` (both multiples of 8) that differs from the
// pattern: every block header is checked, and with `every_word` all its words too.
struct PatternMismatch {
  std::uint64_t offset = 0;    // the word's offset in the file
  std::uint64_t found = 0;     // what the read returned
  std::uint64_t expected = 0;  // what the pattern holds there
};
std::optional<PatternMismatch> find_pattern_mismatch(const unsigned char* data, std::uint64_t offset,
                                                     std::size_t length, std::uint64_t seed, bool every_word);
// "offset 12288: read 0x..., the pattern holds 0x... (block header: a misplaced or stale block)".
std::string describe(const PatternMismatch& mismatch);
// True when find_pattern_mismatch finds nothing.
bool check_pattern(const unsigned char* data, std::uint64_t offset, std::size_t length,
                   std::uint64_t seed, bool every_word);

class ScratchFile {
 public:
  // Creates the file in `dir` without a name (O_TMPFILE; else mkstemp and unlink at once,
  // with SIGINT/SIGTERM handlers covering the microseconds it has a name): the open
  // descriptors keep the data until the process ends, however it ends, even by kill -9. Then
  // fills it. `bytes` is cut to what the filesystem's free space allows. Throws UsageError
  // when `dir` is unusable, RunError when the fill fails.
  static std::unique_ptr<ScratchFile> create(const std::string& dir, std::uint64_t bytes,
                                             std::uint64_t seed);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  int buffered_fd() const { return buffered_fd_; }
  int direct_fd() const { return direct_fd_; }  // -1 where the filesystem refuses O_DIRECT
  std::uint64_t size() const { return size_; }
  std::uint64_t seed() const { return seed_; }
  const std::string& dir() const { return dir_; }
  // Why O_DIRECT is not available, empty when it is.
  const std::string& direct_refused() const { return direct_refused_; }

 private:
  ScratchFile() = default;
  void open_named();
  void fill();

  std::string dir_;
  int buffered_fd_ = -1;
  int direct_fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t seed_ = 0;
  std::string direct_refused_;
};

// Free bytes for an unprivileged writer in `dir` (statvfs), 0 when unknown.
std::uint64_t free_bytes_in(const std::string& dir);

// The scratch file's size: `requested`, but at most half the free space, so a full disk is
// never made. Zero when the free space allows less than 16 MiB.
std::uint64_t scratch_size_for(std::uint64_t requested, std::uint64_t free_bytes);

// "1G", "256M", "4096", "512k" -> bytes; throws UsageError naming the flag.
std::uint64_t parse_size(const std::string& flag, const std::string& text);

}  // namespace pipecheck
