// Case list, names and result parameters of the collectives probe.
#include "comm/comm_cases.hpp"

#include <cstdio>

#include "comm/comm_sweep.hpp"

namespace pipecheck {

std::vector<CommCase> comm_cases(const CommOptions& options, const std::vector<std::uint64_t>& sizes, int ranks) {
  std::vector<CommCase> cases;
  for (Collective collective : options.collectives) {
    for (CommDtype dtype : options.dtypes) {
      for (std::uint64_t size : sizes) {
        CommCase c{collective, dtype, size, collective_counts(collective, size, comm_dtype_info(dtype).bytes, ranks)};
        if (c.counts.param_count == 0) continue;
        // Rounding to whole elements per rank can give two sizes the same operation: run it once.
        const bool repeat = !cases.empty() && cases.back().collective == collective && cases.back().dtype == dtype &&
                            cases.back().counts.bytes == c.counts.bytes;
        if (!repeat) cases.push_back(c);
      }
    }
  }
  return cases;
}

std::string comm_case_name(const CommCase& c, int ranks) {
  std::string name = "comm/";
  name += collective_info(c.collective).name;
  name += '/';
  name += comm_dtype_info(c.dtype).name;
  name += "/ranks:" + std::to_string(ranks) + "/bytes:" + std::to_string(c.counts.bytes);
  return name;
}

const char* comm_figure(int ranks) { return ranks == 1 ? "algbw" : "busbw"; }

std::map<std::string, std::string> comm_case_params(const CommCase& c, const CommJobLabel& job,
                                                    const std::string& verified, std::uint64_t wrong) {
  const char* collective = collective_info(c.collective).name;
  const char* dtype = comm_dtype_info(c.dtype).name;
  std::string what = collective;
  what += ' ';
  what += dtype;
  what += job.ranks == 1 ? std::string(", 1 GPU (one rank: algbw, not judged)")
                         : ", " + std::to_string(job.ranks) + " GPUs";
  if (job.nodes > 1) what += " on " + std::to_string(job.nodes) + " nodes";
  what += ", " + size_text(c.counts.bytes);
  char factor[32];
  std::snprintf(factor, sizeof factor, "%.6g", bus_factor(c.collective, job.ranks));
  return {{"what", what},
          {"collective", collective},
          {"dtype", dtype},
          {"op", "sum"},
          {"bytes", std::to_string(c.counts.bytes)},
          {"count", std::to_string(c.counts.param_count)},
          {"ranks", std::to_string(job.ranks)},
          {"nodes", std::to_string(job.nodes)},
          {"mode", job.mode},
          {"gpu_bdfs", job.gpu_bdfs},
          {"bus_factor", factor},
          {"figure", comm_figure(job.ranks)},
          {"iters", std::to_string(job.iters)},
          {"verified", verified},
          {"wrong", std::to_string(wrong)},
          {"nccl_version", job.nccl_version},
          {"nccl_env", job.nccl_env}};
}

std::vector<std::string> planned_comm_cases(int gpus, std::uint64_t gpu_memory_bytes, ProbeMode mode) {
  std::vector<std::string> names;
  if (gpus < 1) return names;
  ProbeOptions options;
  options.mode = mode;
  const CommOptions comm = parse_comm_options(options);
  std::size_t dropped = 0;
  const auto sizes = cap_sizes(sweep_sizes(comm.sweep), max_size_for_memory(gpu_memory_bytes), dropped);
  for (const CommCase& c : comm_cases(comm, sizes, gpus)) names.push_back(comm_case_name(c, gpus));
  return names;
}

}  // namespace pipecheck
