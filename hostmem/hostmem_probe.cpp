// pipecheck-hostmem: host memory bandwidth (memcpy, read, write), one thread and all cores, on
// buffers well beyond the last-level cache. It bounds pageable host-to-device copies, which the
// driver stages through a memcpy into pinned memory, hence its place in pcie/.
#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>
#include <set>
#include <thread>

#include "core/cpu_allowance.hpp"
#include "core/case_messages.hpp"
#include "core/errors.hpp"
#include "core/probe_main.hpp"
#include "core/stage_names.hpp"
#include "core/sysfs.hpp"
#include "hostmem/host_memory_verify.hpp"

namespace pipecheck {
namespace {

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kPage = 2 * kMiB;  // huge-page alignment where THP is on

// The work model: how many bytes each operation moves per byte of its buffer, counted as
// BabelStream counts them (a copy reads and writes, so it moves two).
struct Operation {
  const char* name;
  int bytes_moved_per_byte;
  int arrays;
};
constexpr Operation kOperations[] = {
    {"memcpy", 2, 2},
    {"read", 1, 1},
    {"write", 1, 1},
};

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<std::uint64_t[], FreeDeleter>;

// Allocated in the thread that uses it, and touched, so pages sit on that thread's NUMA node
// and page faults stay out of the timed region. Its words count from `seed` (the read check).
Buffer make_buffer(std::size_t bytes, std::uint64_t seed) {
  void* memory = std::aligned_alloc(kPage, (bytes + kPage - 1) / kPage * kPage);
  if (memory == nullptr) return nullptr;
  madvise(memory, bytes, MADV_HUGEPAGE);
  auto* words = static_cast<std::uint64_t*>(memory);
  fill_counting_words(words, bytes / 8, seed);
  return Buffer(words);
}

// Eight independent sums so the loop vectorizes and the loads, not the adds, set the pace.
std::uint64_t sum_words(const std::uint64_t* words, std::size_t count) {
  std::uint64_t lanes[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    for (int lane = 0; lane < 8; ++lane) lanes[lane] += words[i + lane];
  }
  std::uint64_t total = 0;
  for (; i < count; ++i) total += words[i];
  for (auto lane : lanes) total += lane;
  return total;
}

// One thread's buffers of the case now running, and the byte its last write pass stored.
struct ThreadBuffers {
  Buffer source, target;
  std::uint64_t seed = 0;
  bool source_counts = false;  // the source holds its counting words (what read verifies)
  unsigned char fill = 0;      // the byte the last write pass stored
};

std::size_t physical_memory_bytes();

// Each thread count's buffers, kept across Google Benchmark's calls (its iteration estimate
// calls a case two or three times a repetition) and across operations, which share them: every
// operation of one thread count works on slices of the same size. Allocating and touching
// them again for each call took longer than the timed loop, and each operation's own took 5 s
// of page faults in a quick run. A thread count whose buffers would take the held bytes past
// half the memory frees the others first. Each thread allocates and touches its own (NUMA
// first touch).
class HeldBuffers {
 public:
  ThreadBuffers* for_thread(int threads, int thread, std::size_t thread_count_bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_threads_.find(threads);
    if (it == by_threads_.end()) {
      if (held_bytes_ + thread_count_bytes > physical_memory_bytes() / 2) {
        by_threads_.clear();
        held_bytes_ = 0;
      }
      it = by_threads_.emplace(threads, std::vector<ThreadBuffers>(static_cast<std::size_t>(threads))).first;
      held_bytes_ += thread_count_bytes;
    }
    return &it->second[static_cast<std::size_t>(thread)];
  }

 private:
  std::mutex mutex_;
  std::map<int, std::vector<ThreadBuffers>> by_threads_;
  std::size_t held_bytes_ = 0;
};
HeldBuffers g_held_buffers;

// This thread's buffers, ready for `op`: allocated on first use, the source refilled with its
// counting words after a write pass overwrote them. False when memory ran out.
bool ready_buffers(ThreadBuffers& mine, const Operation& op, std::size_t slice, int thread_index) {
  if (!mine.source) {
    mine.seed = 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(thread_index + 1);
    mine.source = make_buffer(slice, mine.seed);
    mine.source_counts = true;
  }
  if (op.arrays == 2 && !mine.target) mine.target = make_buffer(slice, 0);
  if (!mine.source || (op.arrays == 2 && !mine.target)) return false;
  if (std::string(op.name) == "read" && !mine.source_counts) {
    fill_counting_words(mine.source.get(), slice / 8, mine.seed);
    mine.source_counts = true;
  }
  if (std::string(op.name) == "write") mine.source_counts = false;
  return true;
}

void run_operation(benchmark::State& state, const Operation& op, std::size_t total_bytes) {
  const auto threads = static_cast<std::size_t>(state.threads());
  const std::size_t slice = std::max<std::size_t>(total_bytes / threads / 64 * 64, 64);
  ThreadBuffers& mine = *g_held_buffers.for_thread(state.threads(), state.thread_index(), slice * threads * 2);
  if (!ready_buffers(mine, op, slice, state.thread_index())) {
    state.SkipWithError("aligned_alloc failed: not enough host memory for the buffer");
    return;
  }
  const Buffer& source = mine.source;
  const Buffer& target = mine.target;
  const std::uint64_t seed = mine.seed;
  const std::string name = op.name;
  std::uint64_t last_sum = 0;
  // Continues from the last call's byte, so a pass that wrote nothing cannot pass the check.
  unsigned char fill = mine.fill;
  for (auto _ : state) {
    if (name == "memcpy") {
      std::memcpy(target.get(), source.get(), slice);
      benchmark::ClobberMemory();
    } else if (name == "read") {
      last_sum = sum_words(source.get(), slice / 8);
      benchmark::DoNotOptimize(last_sum);
    } else {
      fill = static_cast<unsigned char>(fill + 1);
      std::memset(source.get(), fill, slice);
      benchmark::ClobberMemory();
    }
  }
  // Correctness beside speed: the last pass must have done what it claims, every element of it
  // (hostmem/host_memory_verify), outside the timed loop.
  const auto* source_bytes = reinterpret_cast<const unsigned char*>(source.get());
  std::string wrong;
  if (name == "memcpy") wrong = verify_memcpy(reinterpret_cast<const unsigned char*>(target.get()), source_bytes, slice);
  if (name == "read") wrong = verify_read(source.get(), slice / 8, seed, last_sum);
  if (name == "write") wrong = verify_fill(source_bytes, slice, fill);
  mine.fill = fill;
  const bool correct = wrong.empty();
  if (!correct) {
    const std::string where = threads > 1 ? " (thread " + std::to_string(state.thread_index()) + "'s slice)" : "";
    state.SkipWithError(wrong_result_message(wrong + where).c_str());
  }

  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(slice) * op.bytes_moved_per_byte);
  const std::string thread_word = threads == 1 ? " thread" : " threads";
  state.SetLabel(encode_label({{"what", name + ", " + std::to_string(threads) + thread_word},
                               {"op", name},
                               {"threads", std::to_string(threads)},
                               {"buffer_bytes", std::to_string(slice * threads)},
                               {"verified", correct ? "yes" : "no"}}));
}

// Total last-level cache of the machine: the sum over distinct cache instances in sysfs
// (sysconf reports one figure that some CPUs misstate, e.g. a whole EPYC's L3 for one CCX).
std::size_t last_level_cache_bytes() {
  const SysfsRoot sys;
  std::set<std::string> seen;
  std::size_t total = 0;
  int top_level = 0;
  for (const auto& cpu : sys.list("/sys/devices/system/cpu")) {
    if (cpu.rfind("cpu", 0) != 0 || cpu.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    const std::string caches = "/sys/devices/system/cpu/" + cpu + "/cache";
    for (const auto& index : sys.list(caches)) {
      const std::string dir = caches + "/" + index;
      const auto level = sys.read_int(dir + "/level");
      const auto size = sys.read_line(dir + "/size");
      const auto shared = sys.read_line(dir + "/shared_cpu_list");
      if (!level || !size || !shared || *level < top_level) continue;
      if (*level > top_level) {
        top_level = static_cast<int>(*level);
        total = 0;
        seen.clear();
      }
      if (!seen.insert(*shared).second) continue;
      total += std::stoul(*size) * (size->back() == 'M' ? kMiB : 1024);
    }
  }
  return total;
}

std::size_t physical_memory_bytes() {
  return static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// At least 4x the last-level cache of every socket together, so caches cannot flatter it;
// at most a quarter of memory, since memcpy holds two arrays.
std::size_t buffer_bytes(const ProbeOptions& options) {
  if (const std::string* text = options.last("buffer_mib")) {
    const std::size_t mib = std::stoull(*text);  // checked by kFlags: 1..2^24
    // memcpy holds two buffers: beyond half the memory it would swap or be killed, not measure.
    const std::size_t most = physical_memory_bytes() / 2 / kMiB;
    if (mib > most) {
      throw UsageError("--pipecheck_buffer_mib=" + *text + ": two buffers of " + *text +
                       " MiB do not fit in this machine's memory (at most " + std::to_string(most) + ")");
    }
    return mib * kMiB;
  }
  const std::size_t floor = options.mode == ProbeMode::quick  ? 256 * kMiB
                            : options.mode == ProbeMode::full ? 4096 * kMiB
                                                              : 1024 * kMiB;
  const std::size_t wanted = std::max(floor, 4 * last_level_cache_bytes());
  return std::min(wanted, physical_memory_bytes() / 4);
}

const std::vector<ProbeFlag> kFlags = {
    {"pipecheck_buffer_mib", "N", "buffer size in MiB per case (default: 4x the last-level cache, at least 256/1024/4096 by mode)",
     whole_number(1, 1 << 24)},
};

std::string register_cases(const ProbeOptions& options) {
  const std::size_t bytes = buffer_bytes(options);
  const int cores = usable_cpu_count();  // affinity and cgroup quota, not the machine's count
  benchmark::AddCustomContext("pipecheck_buffer_bytes", std::to_string(bytes));
  for (const Operation& op : kOperations) {
    for (int threads : {1, cores}) {
      auto* bench = benchmark::RegisterBenchmark(
          (std::string("hostmem/") + op.name).c_str(),
          [op, bytes](benchmark::State& state) { run_operation(state, op, bytes); });
      bench->Threads(threads)->UseRealTime()->Unit(benchmark::kMillisecond);
      if (cores == 1) break;
    }
  }
  return "";
}

}  // namespace
}  // namespace pipecheck

int main(int argc, char** argv) {
  return pipecheck::run_probe_main(argc, argv, pipecheck::stage_name::hostmem, "pipecheck-hostmem",
                                   pipecheck::register_cases, pipecheck::kFlags);
}
