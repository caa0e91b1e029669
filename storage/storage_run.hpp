// Runs one timed pass of the storage probe: each reader thread with its own workload, started
// together, timed from the first submission to the last completion.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "storage/storage_engine.hpp"

namespace pipecheck {

struct PassResult {
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  std::uint64_t mismatches = 0;
  std::uint64_t submit_calls = 0;  // io_uring_enter calls that handed reads to the kernel
  std::string first_mismatch;  // the first workload's first wrong read, named ("" when none)
  std::string error;
  std::vector<std::uint64_t> latencies_ns;
  double seconds = 0;
};

// readers[i] runs workloads[i]; one thread each (the caller's own when there is one).
PassResult run_pass(std::vector<std::unique_ptr<Reader>>& readers,
                    std::vector<std::unique_ptr<ReadWorkload>>& workloads);

// Engine choice for the whole run: io_uring unless forced or refused, with the reason.
struct EngineChoice {
  bool uring = true;
  std::string label;  // "io_uring", or "pread (io_uring not permitted: ...)"
};
EngineChoice choose_engine(const std::string& forced);

std::unique_ptr<Reader> make_reader(bool uring, const EngineSettings& settings);

}  // namespace pipecheck
