// The read engines of the storage probe: a workload hands out reads, an engine (io_uring or
// pread threads) performs them and hands each completed buffer back for checking.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pipecheck {

struct ReadRequest {
  int fd = -1;
  int fixed_index = -1;      // index among the workload's fixed_fds(), -1 for a plain fd
  std::uint64_t offset = 0;
  std::uint32_t length = 0;  // aligned to the logical block size for O_DIRECT
  std::uint64_t tag = 0;     // the workload's own bookkeeping (e.g. which file)
};

// What one reader thread reads. Not thread-safe: each reader thread has its own.
class ReadWorkload {
 public:
  virtual ~ReadWorkload() = default;
  // The next read to issue, or false when this thread has nothing more to issue.
  virtual bool next(ReadRequest& request) = 0;
  // A read finished: `result` bytes (>= 0, short at end of file) landed in `data`.
  // Returns false to report the data as wrong (verification failure).
  virtual bool complete(const ReadRequest& request, const unsigned char* data,
                        std::int64_t result) = 0;
  // Files the engine may register with the ring (IOSQE_FIXED_FILE).
  virtual std::vector<int> fixed_fds() const { return {}; }
  // Where a read went, for an error message: "at offset N", with the file when it has several.
  virtual std::string where(const ReadRequest& request) const {
    return "at offset " + std::to_string(request.offset);
  }
  // What the first read that complete() called wrong held, and where; "" when none was.
  virtual std::string first_mismatch() const { return {}; }
};

struct EngineSettings {
  unsigned queue_depth = 32;
  std::uint32_t block_size = 1 << 20;  // the largest read any request asks for
  bool sqpoll = false;
  bool record_latency = false;
  // io_uring buffers in transparent huge pages (physically contiguous, so adjacent 1 MiB reads
  // merge into max_sectors_kb requests); false: 4 KiB pages, as fio's malloc'd buffers.
  bool huge_pages = true;
  // io_uring: each read goes to the kernel as soon as its slot is free (one io_uring_enter per
  // read, as fio's default iodepth_batch_submit=1) instead of all free slots in one call. For
  // random reads: nothing there can merge, and a batch of 32 kept a VMM's virtio disk in
  // lockstep (all 32 completed together, the disk idle while the batch was refilled: 0.87x fio).
  // Sequential reads stay batched: the block layer merges adjacent reads of one submit call.
  bool submit_each = false;
};

// What one pass of one reader thread did.
struct ReaderResult {
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  std::uint64_t mismatches = 0;
  std::uint64_t submit_calls = 0;          // io_uring_enter calls that handed reads to the kernel
  std::string error;                       // first failed call, empty when none
  std::vector<std::uint64_t> latencies_ns;  // when record_latency
};

// A reader thread's lasting state (ring, registered buffers), set up once outside timing.
class Reader {
 public:
  virtual ~Reader() = default;
  virtual ReaderResult run(ReadWorkload& workload) = 0;
  // What the engine actually uses, for the label: "fixedbufs=yes" and the like.
  virtual std::string description() const = 0;
};

// Can this process use io_uring? Empty when yes, else why not ("io_uring_queue_init: Operation
// not permitted"), so the probe can fall back to pread and say so.
std::string io_uring_unavailable_reason();

// One io_uring reader: one ring, `queue_depth` registered buffers of `block_size` bytes.
// Throws RunError naming the call when the ring cannot be set up.
std::unique_ptr<Reader> make_uring_reader(const EngineSettings& settings);

// One synchronous pread reader: one buffer of `block_size`, one read at a time.
std::unique_ptr<Reader> make_pread_reader(const EngineSettings& settings);

// Buffers aligned for O_DIRECT (4096 covers every logical block size we meet).
constexpr std::size_t kDirectAlignment = 4096;

}  // namespace pipecheck
