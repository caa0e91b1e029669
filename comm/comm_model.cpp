// Collective work model: counts and bandwidth formulas of nccl-tests.
#include "comm/comm_model.hpp"

#include <algorithm>
#include <cctype>

namespace pipecheck {

namespace {

std::string lower_without_separators(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '-') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

const std::vector<CollectiveInfo>& collectives() {
  static const std::vector<CollectiveInfo> table = {
      {Collective::all_reduce, "all_reduce", "all_reduce_perf"},
      {Collective::all_gather, "all_gather", "all_gather_perf"},
      {Collective::reduce_scatter, "reduce_scatter", "reduce_scatter_perf"},
      {Collective::broadcast, "broadcast", "broadcast_perf"},
  };
  return table;
}

const CollectiveInfo& collective_info(Collective collective) {
  for (const auto& info : collectives()) {
    if (info.collective == collective) return info;
  }
  return collectives().front();
}

std::optional<Collective> parse_collective(const std::string& text) {
  const std::string wanted = lower_without_separators(text);
  for (const auto& info : collectives()) {
    if (lower_without_separators(info.name) == wanted) return info.collective;
  }
  return std::nullopt;
}

const std::vector<CommDtypeInfo>& comm_dtypes() {
  static const std::vector<CommDtypeInfo> table = {
      {CommDtype::float32, "float", 4},
      {CommDtype::bf16, "bf16", 2},
  };
  return table;
}

const CommDtypeInfo& comm_dtype_info(CommDtype dtype) {
  for (const auto& info : comm_dtypes()) {
    if (info.dtype == dtype) return info;
  }
  return comm_dtypes().front();
}

std::optional<CommDtype> parse_comm_dtype(const std::string& text) {
  const std::string name = lower_without_separators(text);
  if (name == "float" || name == "fp32" || name == "float32") return CommDtype::float32;
  if (name == "bf16" || name == "bfloat16") return CommDtype::bf16;
  return std::nullopt;
}

double bus_factor(Collective collective, int ranks) {
  if (ranks < 1) return 0;
  const double n = ranks;
  switch (collective) {
    case Collective::all_reduce: return 2 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter: return (n - 1) / n;
    case Collective::broadcast: return 1;
  }
  return 0;
}

CollectiveCounts collective_counts(Collective collective, std::uint64_t size_bytes, int element_bytes,
                                   int ranks) {
  CollectiveCounts counts;
  if (element_bytes <= 0 || ranks <= 0) return counts;
  const std::uint64_t count = size_bytes / static_cast<std::uint64_t>(element_bytes);
  const auto n = static_cast<std::uint64_t>(ranks);
  // nccl-tests (since its eltSize argument): each rank's block rounded down to whole 16 bytes,
  // `(count/nranks) & -(16/eltSize)`, so every block of the gathered array stays aligned.
  const auto per_16 = static_cast<std::uint64_t>(element_bytes < 16 ? 16 / element_bytes : 1);
  const std::uint64_t block = count / n / per_16 * per_16;
  switch (collective) {
    case Collective::all_gather:
      counts.send_count = block;
      counts.recv_count = block * n;
      counts.param_count = counts.send_count;
      break;
    case Collective::reduce_scatter:
      counts.send_count = block * n;
      counts.recv_count = block;
      counts.param_count = counts.recv_count;
      break;
    case Collective::all_reduce:
    case Collective::broadcast:
      counts.send_count = counts.recv_count = counts.param_count = count;
      break;
  }
  counts.bytes = std::max(counts.send_count, counts.recv_count) * static_cast<std::uint64_t>(element_bytes);
  return counts;
}

Bandwidth collective_bandwidth(Collective collective, const CollectiveCounts& counts, int ranks,
                               double seconds) {
  Bandwidth bandwidth;
  if (seconds <= 0) return bandwidth;
  bandwidth.algbw_gbps = static_cast<double>(counts.bytes) / 1e9 / seconds;
  bandwidth.busbw_gbps = bandwidth.algbw_gbps * bus_factor(collective, ranks);
  return bandwidth;
}

std::uint64_t iteration_offset(std::uint64_t op_bytes, std::uint64_t buffer_bytes, std::uint64_t iteration) {
  if (op_bytes == 0) return 0;
  const std::uint64_t steps = buffer_bytes / op_bytes;
  return steps <= 1 ? 0 : op_bytes * (iteration % steps);
}

}  // namespace pipecheck
