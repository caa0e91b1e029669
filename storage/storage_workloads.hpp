// The read patterns of the storage probe as workloads for the engines: sequential, random and
// whole-file dataset reads, each checking what it read (known pattern) or summing it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/storage_engine.hpp"
#include "storage/storage_target.hpp"

namespace pipecheck {

// How a workload checks the bytes it reads.
struct ReadCheck {
  enum Mode { none, pattern, checksum } mode = none;
  std::uint64_t seed = 0;    // pattern: the scratch file's seed
  bool keep_pieces = false;  // checksum: keep each 4 KiB piece's sum, to say where two passes differ
};

// Order-independent sum of a region's content: the same bytes read in any order, by any
// engine, give the same sum, so io_uring and pread can be compared. It is the sum of the
// region's 4 KiB pieces' sums, each keyed by its offset.
std::uint64_t region_checksum(std::uint64_t tag, std::uint64_t offset, const unsigned char* data,
                              std::size_t length);

// One 4 KiB piece's sum: `tag` names the file (a dataset's file index), `offset` the piece.
struct PieceSum {
  std::uint64_t tag = 0;
  std::uint64_t offset = 0;
  std::uint64_t sum = 0;
};
std::vector<PieceSum> piece_sums(std::uint64_t tag, std::uint64_t offset, const unsigned char* data,
                                 std::size_t length);
// The first piece (by file, then offset) whose sums differ between two passes over the same
// bytes, or that one pass read and the other did not; nullopt when they agree.
std::optional<PieceSum> first_piece_difference(std::vector<PieceSum> a, std::vector<PieceSum> b);

class CheckedWorkload : public ReadWorkload {
 public:
  explicit CheckedWorkload(ReadCheck check) : check_(check) {}
  bool complete(const ReadRequest& request, const unsigned char* data,
                std::int64_t result) override;
  std::uint64_t checksum() const { return checksum_; }
  const std::vector<PieceSum>& pieces() const { return pieces_; }
  std::string first_mismatch() const override { return first_mismatch_; }

 private:
  ReadCheck check_;
  std::uint64_t checksum_ = 0;
  std::uint64_t completions_ = 0;
  std::vector<PieceSum> pieces_;
  std::string first_mismatch_;
};

// [begin, end) of one fd in reads of `block_size`; the last read is rounded up to `align`
// (O_DIRECT) and comes back short at end of file.
class SequentialWorkload : public CheckedWorkload {
 public:
  SequentialWorkload(int fd, std::uint64_t begin, std::uint64_t end, std::uint32_t block_size,
                     std::uint32_t align, ReadCheck check);
  bool next(ReadRequest& request) override;
  std::vector<int> fixed_fds() const override { return {fd_}; }

 private:
  int fd_;
  std::uint64_t position_;
  std::uint64_t end_;
  std::uint32_t block_size_;
  std::uint32_t align_;
};

// `count` reads of `block_size` at uniformly random block-aligned offsets below `size`, or
// fewer when `deadline` passes first: a pass lasts about as long on an HDD as on NVMe, so the
// queue's ramp-down at its end weighs the same on both.
class RandomWorkload : public CheckedWorkload {
 public:
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  RandomWorkload(int fd, std::uint64_t size, std::uint32_t block_size, std::uint64_t count,
                 std::uint64_t rng_seed, ReadCheck check, Deadline deadline = std::nullopt);
  bool next(ReadRequest& request) override;
  std::vector<int> fixed_fds() const override { return {fd_}; }

 private:
  int fd_;
  std::uint64_t blocks_;
  std::uint32_t block_size_;
  std::uint64_t remaining_;
  std::uint64_t state_;
  Deadline deadline_;
};

// Whole files, one after another, each in reads of `block_size`: with a queue of 32 and small
// files, 32 files are in flight, the data loader's pattern. Files are opened as they are
// reached and closed when their last read completes.
class DatasetWorkload : public CheckedWorkload {
 public:
  DatasetWorkload(std::vector<DatasetFile> files, std::uint32_t block_size, std::uint32_t align,
                  bool direct, ReadCheck check);
  ~DatasetWorkload() override;
  DatasetWorkload(const DatasetWorkload&) = delete;
  DatasetWorkload& operator=(const DatasetWorkload&) = delete;
  bool next(ReadRequest& request) override;
  bool complete(const ReadRequest& request, const unsigned char* data,
                std::int64_t result) override;

  std::string where(const ReadRequest& request) const override;

  const std::vector<DatasetFile>& files() const { return files_; }
  std::uint64_t files_read() const { return files_read_; }
  // Files that could not be opened (vanished, refused): skipped, the rest still read.
  std::uint64_t files_unreadable() const { return unreadable_paths_.size(); }
  const std::vector<std::string>& unreadable_paths() const { return unreadable_paths_; }
  const std::string& first_open_error() const { return first_open_error_; }

 private:
  struct OpenFile {
    int fd = -1;
    std::uint64_t issued = 0;   // bytes asked for so far
    unsigned outstanding = 0;
  };
  bool open_next();
  void close_if_done(std::size_t index);

  std::vector<DatasetFile> files_;
  std::vector<OpenFile> open_;
  std::uint32_t block_size_;
  std::uint32_t align_;
  bool direct_;
  std::size_t current_ = 0;      // index of the file being issued
  bool current_open_ = false;
  std::uint64_t files_read_ = 0;
  std::vector<std::string> unreadable_paths_;
  std::string first_open_error_;
};

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple);

}  // namespace pipecheck
