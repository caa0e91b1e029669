// The work model of the NCCL collectives, as nccl-tests counts it (src/*.cu getCollByteCount and
// getBw, doc/PERFORMANCE.md), so that our time, algbw and busbw compare with theirs directly:
// element counts per size, the bytes an operation moves, and the bus-bandwidth factor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast };
enum class CommDtype { float32, bf16 };

struct CollectiveInfo {
  Collective collective;
  const char* name;           // "all_reduce": measurement keys and --collectives
  const char* nccl_tests;     // "all_reduce_perf": the nccl-tests binary measuring the same
};
// In the order the probe runs them: all-reduce, the headline, first.
const std::vector<CollectiveInfo>& collectives();
const CollectiveInfo& collective_info(Collective collective);
// "all_reduce", "allreduce", "all-reduce" (any case) -> all_reduce; nullopt otherwise.
std::optional<Collective> parse_collective(const std::string& text);

struct CommDtypeInfo {
  CommDtype dtype;
  const char* name;  // "float", "bf16"
  int bytes;
};
const std::vector<CommDtypeInfo>& comm_dtypes();
const CommDtypeInfo& comm_dtype_info(CommDtype dtype);
// "float", "fp32", "float32"; "bf16", "bfloat16" (nccl-tests' name) -> the dtype.
std::optional<CommDtype> parse_comm_dtype(const std::string& text);

// busbw = algbw x factor: all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n,
// broadcast 1 (PERFORMANCE.md "Summary").
double bus_factor(Collective collective, int ranks);

// The element counts of one operation of `size_bytes`, nccl-tests' getCollByteCount:
// count = size / element bytes; all-gather sends b = count/n per rank, rounded down to whole
// 16 bytes, and receives b x n; reduce-scatter the reverse; all-reduce and broadcast count both ways.
struct CollectiveCounts {
  std::uint64_t param_count = 0;  // the count argument of the NCCL call
  std::uint64_t send_count = 0;   // elements each rank sends
  std::uint64_t recv_count = 0;   // elements each rank receives
  std::uint64_t bytes = 0;        // nccl-tests' "size" column: max(send, recv) x element bytes
};
CollectiveCounts collective_counts(Collective collective, std::uint64_t size_bytes, int element_bytes,
                                   int ranks);

// algbw = S / t and busbw = algbw x bus_factor, in GB/s (1e9 bytes), S being the counts' bytes
// (for all-gather and reduce-scatter the whole array: count per rank x element bytes x n).
struct Bandwidth {
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};
Bandwidth collective_bandwidth(Collective collective, const CollectiveCounts& counts, int ranks,
                               double seconds);

// Where iteration `iteration` places its buffers inside allocations of `buffer_bytes`, as
// nccl-tests' startColl shifts them: successive small operations touch fresh memory instead of
// sitting in cache. 0 for operations as large as the buffer.
std::uint64_t iteration_offset(std::uint64_t op_bytes, std::uint64_t buffer_bytes, std::uint64_t iteration);

}  // namespace pipecheck
