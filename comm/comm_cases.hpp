// The cases pipecheck-comm registers (collective x dtype x size) and what each result carries:
// its stable name and the label parameters the report needs (stage comm, report.hpp's contract).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "comm/comm_args.hpp"
#include "comm/comm_model.hpp"

namespace pipecheck {

struct CommCase {
  Collective collective = Collective::all_reduce;
  CommDtype dtype = CommDtype::float32;
  std::uint64_t size_bytes = 0;  // as swept
  CollectiveCounts counts;       // for the job's rank count
};

// Each chosen collective, then dtype, then size ascending; a size too small to give every rank
// one element (all-gather, reduce-scatter: 16 bytes) is left out (nccl-tests would run it with
// count 0), and so is a size
// that rounds to the same operation as the one before it.
std::vector<CommCase> comm_cases(const CommOptions& options, const std::vector<std::uint64_t>& sizes, int ranks);

// The case names pipecheck-comm registers for a single-node job over `gpus` GPUs of
// `gpu_memory_bytes` each (0: unknown) with the mode's default sweep, for `run --plan` where the
// probe cannot list them itself (no GPU here).
std::vector<std::string> planned_comm_cases(int gpus, std::uint64_t gpu_memory_bytes, ProbeMode mode);

// "comm/all_reduce/float/ranks:8/bytes:1073741824": stable across runs of the same job shape.
std::string comm_case_name(const CommCase& c, int ranks);

// What every case of a job shares in its label.
struct CommJobLabel {
  int ranks = 0;
  int nodes = 0;
  std::string mode;          // "single_process" or "mpi"
  std::string gpu_bdfs;      // the job's GPUs on rank 0's host, comma-separated
  std::string nccl_version;  // "2.28.3"
  std::string nccl_env;      // nccl_env_text
  int iters = 0;
};

// The figure a job's results carry: "busbw", nccl-tests' bus bandwidth that the report holds
// against the links; for a one-rank job, whose bus bandwidth is 0 by the formula (broadcast's
// factor of 1 aside) and which the report does not judge, "algbw".
const char* comm_figure(int ranks);

// The label parameters of one result: what, collective, dtype, op, bytes, count, ranks, nodes,
// mode, gpu_bdfs, bus_factor, figure (busbw|algbw), iters, verified (yes|no|not_checked), wrong,
// nccl_version, nccl_env.
std::map<std::string, std::string> comm_case_params(const CommCase& c, const CommJobLabel& job,
                                                    const std::string& verified, std::uint64_t wrong);

}  // namespace pipecheck
