// Sequential, random and dataset read patterns for the storage probe's engines.
#include "storage/storage_workloads.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "core/text_escape.hpp"
#include "storage/storage_scratch.hpp"

namespace pipecheck {

namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t round_up(std::uint64_t value, std::uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Summed per 4 KiB piece keyed by its offset, so it does not depend on the read size either.
std::vector<PieceSum> piece_sums(std::uint64_t tag, std::uint64_t offset, const unsigned char* data,
                                 std::size_t length) {
  std::vector<PieceSum> pieces;
  for (std::size_t piece = 0; piece < length; piece += 4096) {
    const std::size_t end = std::min(length, piece + 4096);
    std::uint64_t h = mix(tag * 0x100000001b3ULL ^ (offset + piece));
    std::size_t i = piece;
    for (; i + 8 <= end; i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, data + i, 8);
      h = (h ^ word) * 0x100000001b3ULL;
    }
    for (; i < end; ++i) h = (h ^ data[i]) * 0x100000001b3ULL;
    pieces.push_back({tag, offset + piece, mix(h)});
  }
  return pieces;
}

std::uint64_t region_checksum(std::uint64_t tag, std::uint64_t offset, const unsigned char* data,
                              std::size_t length) {
  std::uint64_t total = 0;
  for (const PieceSum& piece : piece_sums(tag, offset, data, length)) total += piece.sum;
  return total;
}

std::optional<PieceSum> first_piece_difference(std::vector<PieceSum> a, std::vector<PieceSum> b) {
  const auto by_place = [](const PieceSum& x, const PieceSum& y) {
    return x.tag != y.tag ? x.tag < y.tag : x.offset < y.offset;
  };
  std::sort(a.begin(), a.end(), by_place);
  std::sort(b.begin(), b.end(), by_place);
  std::size_t i = 0;
  for (; i < a.size() && i < b.size(); ++i) {
    if (a[i].tag != b[i].tag || a[i].offset != b[i].offset) return by_place(a[i], b[i]) ? a[i] : b[i];
    if (a[i].sum != b[i].sum) return a[i];
  }
  if (i < a.size()) return a[i];
  if (i < b.size()) return b[i];
  return std::nullopt;
}

bool CheckedWorkload::complete(const ReadRequest& request, const unsigned char* data,
                               std::int64_t result) {
  const auto length = static_cast<std::size_t>(result);
  ++completions_;
  switch (check_.mode) {
    case ReadCheck::pattern: {
      // Headers of every block; every word of one read in 64, to keep the check off the clock.
      const auto mismatch = find_pattern_mismatch(data, request.offset, length, check_.seed, completions_ % 64 == 1);
      if (mismatch && first_mismatch_.empty()) first_mismatch_ = describe(*mismatch);
      return !mismatch;
    }
    case ReadCheck::checksum:
      if (check_.keep_pieces) {
        for (const PieceSum& piece : piece_sums(request.tag, request.offset, data, length)) {
          checksum_ += piece.sum;
          pieces_.push_back(piece);
        }
      } else {
        checksum_ += region_checksum(request.tag, request.offset, data, length);
      }
      return true;
    case ReadCheck::none: break;
  }
  return true;
}

SequentialWorkload::SequentialWorkload(int fd, std::uint64_t begin, std::uint64_t end,
                                       std::uint32_t block_size, std::uint32_t align,
                                       ReadCheck check)
    : CheckedWorkload(check), fd_(fd), position_(begin), end_(end), block_size_(block_size),
      align_(align) {}

bool SequentialWorkload::next(ReadRequest& request) {
  if (position_ >= end_) return false;
  const std::uint64_t left = end_ - position_;
  request = {fd_, 0, position_,
             static_cast<std::uint32_t>(std::min<std::uint64_t>(block_size_, round_up(left, align_))),
             0};
  position_ += request.length;
  return true;
}

RandomWorkload::RandomWorkload(int fd, std::uint64_t size, std::uint32_t block_size,
                               std::uint64_t count, std::uint64_t rng_seed, ReadCheck check,
                               Deadline deadline)
    : CheckedWorkload(check), fd_(fd), blocks_(std::max<std::uint64_t>(1, size / block_size)),
      block_size_(block_size), remaining_(count), state_(mix(rng_seed)),  // seeds 1, 2, 3 stay distinct
      deadline_(deadline) {}

bool RandomWorkload::next(ReadRequest& request) {
  if (remaining_ == 0) return false;
  if (deadline_ && std::chrono::steady_clock::now() >= *deadline_) {
    remaining_ = 0;
    return false;
  }
  --remaining_;
  state_ = mix(state_);
  request = {fd_, 0, (state_ % blocks_) * block_size_, block_size_, 0};
  return true;
}

DatasetWorkload::DatasetWorkload(std::vector<DatasetFile> files, std::uint32_t block_size,
                                 std::uint32_t align, bool direct, ReadCheck check)
    : CheckedWorkload(check), files_(std::move(files)), open_(files_.size()),
      block_size_(block_size), align_(align), direct_(direct) {}

DatasetWorkload::~DatasetWorkload() {
  for (auto& file : open_) {
    if (file.fd >= 0) close(file.fd);
  }
}

// Moves to the next file that has bytes to read; empty files count as read at once.
bool DatasetWorkload::open_next() {
  for (; current_ < files_.size(); ++current_) {
    if (files_[current_].size == 0) {
      ++files_read_;
      continue;
    }
    const int flags = O_RDONLY | O_CLOEXEC | (direct_ ? O_DIRECT : 0);
    const int fd = open(files_[current_].path.c_str(), flags);
    if (fd < 0) {
      // A file that vanished or is refused: counted and named, the rest is still measured.
      if (first_open_error_.empty()) first_open_error_ = errno_message("open", files_[current_].path, errno);
      unreadable_paths_.push_back(files_[current_].path);
      continue;
    }
    open_[current_].fd = fd;
    return true;
  }
  return false;
}

std::string DatasetWorkload::where(const ReadRequest& request) const {
  const auto index = static_cast<std::size_t>(request.tag);
  const std::string offset = "at offset " + std::to_string(request.offset);
  return index < files_.size() ? escape_name(files_[index].path) + " " + offset : offset;
}

bool DatasetWorkload::next(ReadRequest& request) {
  if (!current_open_) {
    if (!open_next()) return false;
    current_open_ = true;
  }
  OpenFile& file = open_[current_];
  const std::uint64_t size = files_[current_].size;
  const std::uint64_t left = size - file.issued;
  request = {file.fd, -1, file.issued,
             static_cast<std::uint32_t>(std::min<std::uint64_t>(block_size_, round_up(left, align_))),
             current_};
  file.issued += request.length;
  ++file.outstanding;
  if (file.issued >= size) {  // fully issued: the next request starts the next file
    ++current_;
    current_open_ = false;
  }
  return true;
}

bool DatasetWorkload::complete(const ReadRequest& request, const unsigned char* data,
                               std::int64_t result) {
  const bool good = CheckedWorkload::complete(request, data, result);
  --open_[request.tag].outstanding;
  close_if_done(request.tag);
  return good;
}

void DatasetWorkload::close_if_done(std::size_t index) {
  OpenFile& file = open_[index];
  if (file.outstanding > 0 || file.issued < files_[index].size || file.fd < 0) return;
  close(file.fd);
  file.fd = -1;
  ++files_read_;
}

}  // namespace pipecheck
