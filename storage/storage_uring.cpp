// The io_uring engine: one ring per reader thread, registered buffers (READ_FIXED) and files,
// the ring kept full: sequential reads submitted in batches (one syscall per batch, submit and
// wait), random reads one at a time as their slots free (see EngineSettings::submit_each).
#include <liburing.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/errors.hpp"
#include "storage/storage_engine.hpp"

namespace pipecheck {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kHugePage = 2 * 1024 * 1024;

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
          .count());
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

class UringReader : public Reader {
 public:
  explicit UringReader(const EngineSettings& settings) : settings_(settings) {
    io_uring_params params{};
    if (settings.sqpoll) {
      params.flags |= IORING_SETUP_SQPOLL;
      params.sq_thread_idle = 2000;  // ms: keep the poller awake between iterations
    }
    // COOP_TASKRUN: completions are run when we enter the kernel anyway, not by interrupting
    // the reader with an IPI (as fio sets it); kernels before 5.19 refuse it, so retry without.
    io_uring_params tuned = params;
    tuned.flags |= IORING_SETUP_COOP_TASKRUN;
    int rc = io_uring_queue_init_params(settings.queue_depth, &ring_, &tuned);
    if (rc == -EINVAL) rc = io_uring_queue_init_params(settings.queue_depth, &ring_, &params);
    if (rc < 0) throw RunError(errno_message("io_uring_queue_init", "", -rc));
    const std::size_t bytes = std::size_t{settings.queue_depth} * settings.block_size;
    // Huge pages where the kernel has them: a 1 MiB read into physically contiguous memory
    // is one segment, not 256, so the block layer need not split it (virtio-blk takes 254),
    // and adjacent reads merge up to max_sectors_kb. 4 KiB pages when asked (--buffers=pages).
    const std::size_t page = settings.huge_pages ? kHugePage : kDirectAlignment;
    const std::size_t rounded = (bytes + page - 1) / page * page;
    buffers_.reset(static_cast<unsigned char*>(std::aligned_alloc(page, rounded)));
    if (!buffers_) {
      io_uring_queue_exit(&ring_);
      throw RunError("aligned_alloc of " + std::to_string(bytes) + " bytes for the ring failed");
    }
    madvise(buffers_.get(), rounded, settings.huge_pages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::vector<iovec> iovecs(settings.queue_depth);
    for (unsigned i = 0; i < settings.queue_depth; ++i) {
      iovecs[i] = {buffers_.get() + std::size_t{i} * settings.block_size, settings.block_size};
    }
    // Registration pins the pages once instead of on every read, and faults them in outside
    // timing. Its pinning takes 4 KiB pages in physically ascending runs (33 runs per MiB on the
    // development VM, against 256 when a memset faulted them page by page): fewer segments per
    // request, and a virtio disk without indirect descriptors holds more requests at once.
    // RLIMIT_MEMLOCK may refuse it, and then plain READ still works, just slower: say so
    // rather than fail, and fault the pages in here.
    fixed_buffers_ = io_uring_register_buffers(&ring_, iovecs.data(), settings.queue_depth) == 0;
    if (!fixed_buffers_) std::memset(buffers_.get(), 0, bytes);
  }
  ~UringReader() override { io_uring_queue_exit(&ring_); }
  UringReader(const UringReader&) = delete;
  UringReader& operator=(const UringReader&) = delete;

  std::string description() const override {
    return std::string("fixedbufs=") + (fixed_buffers_ ? "yes" : "no") +
           ",registerfiles=" + (fixed_files_ ? "yes" : "no") +
           ",sqpoll=" + (settings_.sqpoll ? "yes" : "no") + ",buffers=" + (settings_.huge_pages ? "huge" : "pages") +
           ",submit=" + (settings_.submit_each ? "each" : "batch");
  }

  ReaderResult run(ReadWorkload& workload) override {
    ReaderResult result;
    if (broken_) {
      result.error = "io_uring reader unusable after an earlier submit error";
      return result;
    }
    register_files(workload.fixed_fds());
    Pass pass{workload, result, std::vector<Slot>(settings_.queue_depth), {}};
    for (unsigned i = 0; i < settings_.queue_depth; ++i) pass.free_slots.push_back(i);
    bool more = true;
    unsigned in_flight = 0;
    while (more || in_flight > 0) {
      if (more) more = fill(pass, in_flight);
      if (in_flight == 0) break;
      if (io_uring_sq_ready(&ring_) > 0) ++result.submit_calls;
      const int rc = io_uring_submit_and_wait(&ring_, 1);
      if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
        result.error = errno_message("io_uring_submit_and_wait", "", -rc);
        drain(in_flight);
        break;
      }
      reap(pass, in_flight);
      if (!result.error.empty()) {
        more = false;  // stop issuing; collect what is in flight so buffers are not reused
      }
    }
    return result;
  }

 private:
  struct Slot {
    ReadRequest request;
    std::uint64_t submitted_ns = 0;
  };
  struct Pass {
    ReadWorkload& workload;
    ReaderResult& result;
    std::vector<Slot> slots;
    std::vector<unsigned> free_slots;
  };

  void register_files(const std::vector<int>& fds) {
    if (fds == registered_fds_) return;
    if (fixed_files_) io_uring_unregister_files(&ring_);
    fixed_files_ = !fds.empty() &&
                   io_uring_register_files(&ring_, fds.data(), static_cast<unsigned>(fds.size())) == 0;
    registered_fds_ = fixed_files_ ? fds : std::vector<int>{};
  }

  unsigned char* buffer_of(unsigned slot) const {
    return buffers_.get() + std::size_t{slot} * settings_.block_size;
  }

  // Queues reads into every free slot; false once the workload has no more to give.
  bool fill(Pass& pass, unsigned& in_flight) {
    // One clock read per batch; one per read when each goes out in its own call, or the last of
    // 32 would carry the 31 calls before it in its latency.
    std::uint64_t stamp = settings_.record_latency ? now_ns() : 0;
    while (!pass.free_slots.empty() && io_uring_sq_space_left(&ring_) > 0) {
      const unsigned slot = pass.free_slots.back();
      Slot& s = pass.slots[slot];
      if (!pass.workload.next(s.request)) return false;
      pass.free_slots.pop_back();
      prep(io_uring_get_sqe(&ring_), slot, s.request);
      if (settings_.record_latency && settings_.submit_each) stamp = now_ns();
      s.submitted_ns = stamp;
      ++in_flight;
      if (settings_.submit_each) submit_now(pass);
    }
    return true;
  }

  // Hands what is prepared to the kernel without waiting; a failure is left for the submit
  // and wait that follows, which reports it.
  void submit_now(Pass& pass) {
    if (io_uring_submit(&ring_) > 0) ++pass.result.submit_calls;
  }

  void prep(io_uring_sqe* sqe, unsigned slot, const ReadRequest& request) {
    const bool fixed_file = fixed_files_ && request.fixed_index >= 0;
    const int fd = fixed_file ? request.fixed_index : request.fd;
    if (fixed_buffers_) {
      io_uring_prep_read_fixed(sqe, fd, buffer_of(slot), request.length, request.offset,
                               static_cast<int>(slot));
    } else {
      io_uring_prep_read(sqe, fd, buffer_of(slot), request.length, request.offset);
    }
    if (fixed_file) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data64(sqe, slot);
  }

  void reap(Pass& pass, unsigned& in_flight) {
    io_uring_cqe* cqe = nullptr;
    unsigned head = 0;
    unsigned seen = 0;
    const std::uint64_t stamp = settings_.record_latency ? now_ns() : 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      ++seen;
      --in_flight;
      const auto slot = static_cast<unsigned>(io_uring_cqe_get_data64(cqe));
      if (finish(pass, slot, cqe->res, stamp)) ++in_flight;
    }
    io_uring_cq_advance(&ring_, seen);
  }

  // Accounts one completion; true when the read was issued again (still in flight).
  bool finish(Pass& pass, unsigned slot, int res, std::uint64_t stamp) {
    Slot& s = pass.slots[slot];
    ReaderResult& result = pass.result;
    if (res == -EAGAIN || res == -EINTR) {
      // Transient: issue the same read again rather than count it.
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      if (sqe != nullptr) {
        prep(sqe, slot, s.request);
        return true;
      }
    }
    if (res < 0) {
      if (result.error.empty()) {
        result.error = errno_message("io_uring read", pass.workload.where(s.request), -res);
      }
    } else {
      result.bytes += static_cast<std::uint64_t>(res);
      ++result.ops;
      if (settings_.record_latency) result.latencies_ns.push_back(stamp - s.submitted_ns);
      if (!pass.workload.complete(s.request, buffer_of(slot), res)) ++result.mismatches;
    }
    pass.free_slots.push_back(slot);
    return false;
  }

  // After a submit error: collect what the kernel took, but never wait for reads it did not.
  void drain(unsigned& in_flight) {
    in_flight -= std::min(in_flight, io_uring_sq_ready(&ring_));  // prepared, never submitted
    while (in_flight > 0) {
      io_uring_cqe* cqe = nullptr;
      __kernel_timespec timeout{5, 0};
      if (io_uring_wait_cqe_timeout(&ring_, &cqe, &timeout) < 0) break;
      io_uring_cqe_seen(&ring_, cqe);
      --in_flight;
    }
    // Unsubmitted entries stay in the ring and would go out with the next pass's stale slots.
    broken_ = true;
  }

  EngineSettings settings_;
  io_uring ring_{};
  std::unique_ptr<unsigned char[], FreeDeleter> buffers_;
  bool fixed_buffers_ = false;
  bool fixed_files_ = false;
  bool broken_ = false;  // a submit failed: entries may be left in the ring
  std::vector<int> registered_fds_;
};

}  // namespace

std::string io_uring_unavailable_reason() {
  io_uring ring{};
  const int rc = io_uring_queue_init(2, &ring, 0);
  if (rc < 0) return errno_message("io_uring_queue_init", "", -rc);
  io_uring_queue_exit(&ring);
  return "";
}

std::unique_ptr<Reader> make_uring_reader(const EngineSettings& settings) {
  return std::make_unique<UringReader>(settings);
}

}  // namespace pipecheck
