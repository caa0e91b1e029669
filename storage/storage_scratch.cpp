// The storage probe's scratch file: pattern, creation, O_DIRECT fill, removal on any exit.
#include "storage/storage_scratch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cctype>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "core/errors.hpp"
#include "core/text_escape.hpp"

namespace pipecheck {

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer: cheap and well spread
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t expected_word(std::uint64_t word_offset, std::uint64_t seed) {
  const std::uint64_t in_block = word_offset % kPatternBlock;
  if (in_block == 0) return word_offset - in_block;
  if (in_block == 8) return seed;
  return mix(seed ^ word_offset);
}

// The name exists only between mkstemp and unlink, microseconds; a signal in that window
// must still remove it. The handler may only use async-signal-safe calls: unlink, raise.
char g_named_path[PATH_MAX];
volatile std::sig_atomic_t g_named = 0;

extern "C" void unlink_and_reraise(int signal_number) {
  if (g_named) unlink(g_named_path);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

class NameGuard {  // holds the handlers while the scratch file has a name
 public:
  explicit NameGuard(const std::string& path) {
    std::strncpy(g_named_path, path.c_str(), sizeof g_named_path - 1);
    g_named = 1;
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) previous_[index(s)] = std::signal(s, unlink_and_reraise);
  }
  ~NameGuard() {
    g_named = 0;
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(s, previous_[index(s)]);
  }
  NameGuard(const NameGuard&) = delete;
  NameGuard& operator=(const NameGuard&) = delete;

 private:
  static int index(int s) { return s == SIGINT ? 0 : s == SIGTERM ? 1 : s == SIGHUP ? 2 : 3; }
  void (*previous_[4])(int) = {};
};

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

void fill_pattern(unsigned char* data, std::uint64_t offset, std::size_t length,
                  std::uint64_t seed) {
  for (std::size_t i = 0; i + 8 <= length; i += 8) {
    const std::uint64_t word = expected_word(offset + i, seed);
    std::memcpy(data + i, &word, 8);
  }
}

std::optional<PatternMismatch> find_pattern_mismatch(const unsigned char* data, std::uint64_t offset,
                                                     std::size_t length, std::uint64_t seed, bool every_word) {
  // Block headers first: cheap, and enough to catch a misplaced or stale block.
  std::size_t first = static_cast<std::size_t>((kPatternBlock - offset % kPatternBlock) % kPatternBlock);
  for (std::size_t i = first; i + 16 <= length; i += kPatternBlock) {
    std::uint64_t words[2];
    std::memcpy(words, data + i, 16);
    if (words[0] != offset + i) return PatternMismatch{offset + i, words[0], offset + i};
    if (words[1] != seed) return PatternMismatch{offset + i + 8, words[1], seed};
  }
  if (!every_word) return std::nullopt;
  for (std::size_t i = 0; i + 8 <= length; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, data + i, 8);
    const std::uint64_t expected = expected_word(offset + i, seed);
    if (word != expected) return PatternMismatch{offset + i, word, expected};
  }
  return std::nullopt;
}

std::string describe(const PatternMismatch& mismatch) {
  char text[160];
  std::snprintf(text, sizeof text, "offset %llu: read 0x%016llx, the pattern holds 0x%016llx",
                static_cast<unsigned long long>(mismatch.offset), static_cast<unsigned long long>(mismatch.found),
                static_cast<unsigned long long>(mismatch.expected));
  std::string result = text;
  if (mismatch.offset % kPatternBlock < 16) result += " (block header: a misplaced or stale block)";
  return result;
}

bool check_pattern(const unsigned char* data, std::uint64_t offset, std::size_t length,
                   std::uint64_t seed, bool every_word) {
  return !find_pattern_mismatch(data, offset, length, seed, every_word);
}

std::uint64_t free_bytes_in(const std::string& dir) {
  struct statvfs info {};
  if (statvfs(dir.c_str(), &info) != 0) return 0;
  return static_cast<std::uint64_t>(info.f_bavail) * info.f_frsize;
}

std::uint64_t scratch_size_for(std::uint64_t requested, std::uint64_t free_bytes) {
  const std::uint64_t allowed = std::min(requested, free_bytes / 2) / kMiB * kMiB;
  return allowed < 16 * kMiB ? 0 : allowed;
}

std::uint64_t parse_size(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    // stoull would take "-1" as 2^64-1: only digits may start a size.
    if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string suffix = used == 0 ? "" : text.substr(used);
  std::uint64_t unit = 0;
  if (suffix.empty()) unit = 1;
  if (suffix == "k" || suffix == "K" || suffix == "KiB") unit = 1024;
  if (suffix == "m" || suffix == "M" || suffix == "MiB") unit = kMiB;
  if (suffix == "g" || suffix == "G" || suffix == "GiB") unit = 1024 * kMiB;
  if (used == 0 || unit == 0 || value == 0 || value > (1ull << 50) / unit) {
    throw UsageError("--" + flag + "=" + shortened(text) + ": expected a size such as 4096, 128K, 256M, 1G, at most 2^50 bytes");
  }
  return value * unit;
}

std::unique_ptr<ScratchFile> ScratchFile::create(const std::string& dir, std::uint64_t bytes,
                                                 std::uint64_t seed) {
  struct stat info {};
  if (stat(dir.c_str(), &info) != 0) {
    throw UsageError("--scratch-dir " + dir + ": " + errno_message("stat", dir, errno));
  }
  if (!S_ISDIR(info.st_mode)) throw UsageError("--scratch-dir " + dir + ": not a directory");
  std::unique_ptr<ScratchFile> file(new ScratchFile());
  file->dir_ = dir;
  file->seed_ = seed;
  file->size_ = scratch_size_for(bytes, free_bytes_in(dir));
  if (file->size_ == 0) {
    throw UsageError("--scratch-dir " + dir + ": less than 32 MiB free for the scratch file");
  }
  // O_TMPFILE: a file that never has a name, so nothing can be left behind at all.
  file->buffered_fd_ = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (file->buffered_fd_ >= 0) {
    const std::string self = "/proc/self/fd/" + std::to_string(file->buffered_fd_);
    file->direct_fd_ = open(self.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    if (file->direct_fd_ < 0) file->direct_refused_ = errno_message("open O_DIRECT", dir, errno);
  } else {
    file->open_named();  // filesystems without O_TMPFILE
  }
  fcntl(file->buffered_fd_, F_SETFD, FD_CLOEXEC);
  file->fill();
  return file;
}

// mkstemp, open O_DIRECT by name, unlink: the name lives for microseconds, under the guard.
void ScratchFile::open_named() {
  std::string path = dir_ + "/pipecheck-storage-XXXXXX";
  NameGuard guard(path);  // the template name is harmless to unlink if mkstemp fails
  const int fd = mkstemp(path.data());
  if (fd < 0) throw UsageError("--scratch-dir " + dir_ + ": " + errno_message("mkstemp", path, errno));
  std::strncpy(g_named_path, path.c_str(), sizeof g_named_path - 1);
  buffered_fd_ = fd;
  direct_fd_ = open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (direct_fd_ < 0) direct_refused_ = errno_message("open O_DIRECT", dir_, errno);
  unlink(path.c_str());
}

ScratchFile::~ScratchFile() {
  if (direct_fd_ >= 0) close(direct_fd_);
  if (buffered_fd_ >= 0) close(buffered_fd_);
}

// Written through O_DIRECT where allowed, so no page of it is cached when the reads start;
// else buffered, synced and evicted.
void ScratchFile::fill() {
  if (const int rc = posix_fallocate(buffered_fd_, 0, static_cast<off_t>(size_)); rc != 0 && rc != EOPNOTSUPP) {
    throw RunError(errno_message("posix_fallocate", dir_ + " (" + std::to_string(size_) + " bytes)", rc));
  }
  constexpr std::size_t kChunk = 4 * kMiB;
  std::unique_ptr<unsigned char[], FreeDeleter> chunk(
      static_cast<unsigned char*>(std::aligned_alloc(4096, kChunk)));
  if (!chunk) throw RunError("aligned_alloc of the fill buffer failed");
  const int fd = direct_fd_ >= 0 ? direct_fd_ : buffered_fd_;
  for (std::uint64_t offset = 0; offset < size_; offset += kChunk) {
    const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, size_ - offset));
    fill_pattern(chunk.get(), offset, length, seed_);
    for (std::size_t done = 0; done < length;) {
      const ssize_t wrote = pwrite(fd, chunk.get() + done, length - done, static_cast<off_t>(offset + done));
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) throw RunError(errno_message("pwrite", "scratch file in " + dir_, errno));
      done += static_cast<std::size_t>(wrote);
    }
  }
  if (fsync(fd) != 0) throw RunError(errno_message("fsync", "scratch file in " + dir_, errno));
  posix_fadvise(buffered_fd_, 0, 0, POSIX_FADV_DONTNEED);
}

}  // namespace pipecheck
