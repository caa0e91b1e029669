// The GPUs of one collective job and whether it can run: every selected local GPU of a single
// process, or one GPU per MPI rank gathered from every rank's facts. Every rank computes the
// same plan from the same gathered facts, so all ranks take the same decision.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pcie/pcie_plan.hpp"

namespace pipecheck {

// What one rank tells the others about itself at start.
struct RankFacts {
  std::string host;
  int device = -1;             // CUDA ordinal of its GPU; -1 without one
  std::string bdf;
  std::string gpu_name;
  std::uint64_t memory_bytes = 0;
  std::string problem;         // why it has no GPU ("no CUDA device")
};
// One line (tab-separated) and back; throws RunError on a line that is not one.
std::string encode_rank_facts(const RankFacts& facts);
RankFacts decode_rank_facts(const std::string& line);

struct JobGpu {
  int rank = 0;                // NCCL rank
  std::string host;
  int device = -1;             // CUDA ordinal on its host
  std::string bdf;
  std::string name;
  std::uint64_t memory_bytes = 0;
};

struct JobPlan {
  std::vector<JobGpu> gpus;    // in rank order
  int nodes = 0;               // distinct hosts
  bool mpi = false;            // one rank a GPU under MPI
  std::string skip_reason;     // "needs a GPU (found 0: no CUDA device)": skipped, exit 0
  std::string error;           // a broken job (two ranks on one GPU): could not run
};

// A single process driving the GPUs `select_gpus` chose (`cuda_skip`: its reason for none). One
// GPU is a one-rank job (nccl-tests' -g 1): every collective runs with its data check, its bus
// bandwidth is 0 by the formula and the report does not judge it.
JobPlan plan_single_process(const std::vector<GpuTarget>& gpus, const std::string& host,
                            const std::string& cuda_skip);
// An MPI job of one GPU per rank, from every rank's facts in rank order.
JobPlan plan_from_ranks(const std::vector<RankFacts>& ranks);

// The smallest GPU memory of the job (0 when unknown): what caps the largest size.
std::uint64_t smallest_memory(const JobPlan& plan);
// "0000:17:00.0,0000:18:00.0": the job's GPUs on rank 0's host, the host whose inventory the
// report holds the result against.
std::string first_host_bdfs(const JobPlan& plan);
// For the pipecheck_gpus context: "rank0=NVIDIA H200@host:0000:17:00.0,...".
std::string job_gpus_text(const JobPlan& plan);

}  // namespace pipecheck
