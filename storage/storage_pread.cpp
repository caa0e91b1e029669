// The pread engine: one synchronous read at a time per thread. It is both the naive baseline
// (one thread, 128 KiB: a data loader with num_workers=0) and the fallback where io_uring is
// not permitted (seccomp, old kernels, kernel.io_uring_disabled).
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/errors.hpp"
#include "storage/storage_engine.hpp"

namespace pipecheck {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

class PreadReader : public Reader {
 public:
  explicit PreadReader(const EngineSettings& settings) : settings_(settings) {
    buffer_.reset(
        static_cast<unsigned char*>(std::aligned_alloc(kDirectAlignment, settings.block_size)));
    if (!buffer_) throw RunError("aligned_alloc of the pread buffer failed");
    std::memset(buffer_.get(), 0, settings.block_size);
  }

  std::string description() const override { return "sync"; }

  ReaderResult run(ReadWorkload& workload) override {
    ReaderResult result;
    ReadRequest request;
    while (workload.next(request)) {
      const auto start = std::chrono::steady_clock::now();
      ssize_t got = -1;
      do {
        got = pread(request.fd, buffer_.get(), request.length, static_cast<off_t>(request.offset));
      } while (got < 0 && errno == EINTR);
      if (got < 0) {
        result.error = errno_message("pread", workload.where(request), errno);
        break;
      }
      if (settings_.record_latency) {
        result.latencies_ns.push_back(static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::steady_clock::now() - start)
                .count()));
      }
      result.bytes += static_cast<std::uint64_t>(got);
      ++result.ops;
      if (!workload.complete(request, buffer_.get(), got)) ++result.mismatches;
    }
    return result;
  }

 private:
  EngineSettings settings_;
  std::unique_ptr<unsigned char[], FreeDeleter> buffer_;
};

}  // namespace

std::unique_ptr<Reader> make_pread_reader(const EngineSettings& settings) {
  return std::make_unique<PreadReader>(settings);
}

}  // namespace pipecheck
