// Timed passes and engine choice for the storage probe.
#include "storage/storage_run.hpp"

#include <chrono>
#include <thread>

#include "core/errors.hpp"

namespace pipecheck {

PassResult run_pass(std::vector<std::unique_ptr<Reader>>& readers,
                    std::vector<std::unique_ptr<ReadWorkload>>& workloads) {
  std::vector<ReaderResult> results(readers.size());
  const auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 1; i < readers.size(); ++i) {
      threads.emplace_back([&, i] { results[i] = readers[i]->run(*workloads[i]); });
    }
    results[0] = readers[0]->run(*workloads[0]);
  }
  PassResult pass;
  pass.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (auto& result : results) {
    pass.bytes += result.bytes;
    pass.ops += result.ops;
    pass.mismatches += result.mismatches;
    pass.submit_calls += result.submit_calls;
    if (pass.error.empty()) pass.error = result.error;
    pass.latencies_ns.insert(pass.latencies_ns.end(), result.latencies_ns.begin(),
                             result.latencies_ns.end());
  }
  for (const auto& workload : workloads) {
    if (pass.first_mismatch.empty()) pass.first_mismatch = workload->first_mismatch();
  }
  return pass;
}

EngineChoice choose_engine(const std::string& forced) {
  if (forced == "pread") return {false, "pread (forced by --engine=pread)"};
  if (!forced.empty() && forced != "io_uring" && forced != "uring") {
    throw UsageError("--engine=" + forced + ": expected io_uring or pread");
  }
  const std::string refused = io_uring_unavailable_reason();
  if (refused.empty()) return {true, "io_uring"};
  if (forced == "io_uring" || forced == "uring") {
    throw UsageError("--engine=io_uring: " + refused);
  }
  return {false, "pread (io_uring not permitted: " + refused + ")"};
}

std::unique_ptr<Reader> make_reader(bool uring, const EngineSettings& settings) {
  return uring ? make_uring_reader(settings) : make_pread_reader(settings);
}

}  // namespace pipecheck
