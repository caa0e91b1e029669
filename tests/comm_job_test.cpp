// Planning a collective job: local GPUs of one process, or one GPU per MPI rank from facts every
// rank sends; the skip reasons and errors every rank reaches alike.
#include "comm/comm_job.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;

GpuTarget target(int index, const std::string& bdf, std::uint64_t memory = 80 * kGiB) {
  GpuTarget gpu;
  gpu.index = index;
  gpu.bdf = bdf;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.memory_bytes = memory;
  return gpu;
}

RankFacts rank_on(const std::string& host, int device, const std::string& bdf) {
  return {host, device, bdf, "NVIDIA H100 80GB HBM3", 80 * kGiB, ""};
}

TEST(CommJob, RankFactsTravelAsOneLine) {
  const RankFacts facts{"node\t7", 3, "0000:17:00.0", "NVIDIA H200", 141 * kGiB, ""};
  const RankFacts back = decode_rank_facts(encode_rank_facts(facts));
  EXPECT_EQ(back.host, "node 7");  // a tab in a field cannot break the line
  EXPECT_EQ(back.device, 3);
  EXPECT_EQ(back.bdf, "0000:17:00.0");
  EXPECT_EQ(back.memory_bytes, 141 * kGiB);
  const RankFacts none = decode_rank_facts(encode_rank_facts({"node8", -1, "", "", 0, "no CUDA device"}));
  EXPECT_EQ(none.device, -1);
  EXPECT_EQ(none.problem, "no CUDA device");
  EXPECT_THROW(decode_rank_facts("garbage"), RunError);
  EXPECT_THROW(decode_rank_facts("h\tx\t\t\t0\t"), RunError);
}

TEST(CommJob, SingleProcessRunsOnOneGpuOrMore) {
  const JobPlan none = plan_single_process({}, "h", "no CUDA device");
  EXPECT_EQ(none.skip_reason, "needs a GPU (found 0: no CUDA device)");
  // One GPU is a one-rank job (nccl-tests' -g 1), not a skip.
  const JobPlan one = plan_single_process({target(0, "0000:17:00.0")}, "h", "");
  EXPECT_EQ(one.skip_reason, "");
  ASSERT_EQ(one.gpus.size(), 1u);
  EXPECT_EQ(one.gpus[0].rank, 0);
  EXPECT_EQ(one.nodes, 1);
  const JobPlan two = plan_single_process({target(0, "0000:17:00.0"), target(1, "0000:18:00.0", 40 * kGiB)}, "h", "");
  EXPECT_EQ(two.skip_reason, "");
  EXPECT_FALSE(two.mpi);
  EXPECT_EQ(two.nodes, 1);
  ASSERT_EQ(two.gpus.size(), 2u);
  EXPECT_EQ(two.gpus[1].rank, 1);
  EXPECT_EQ(two.gpus[1].device, 1);
  EXPECT_EQ(smallest_memory(two), 40 * kGiB);
  EXPECT_EQ(first_host_bdfs(two), "0000:17:00.0,0000:18:00.0");
  EXPECT_EQ(job_gpus_text(two), "rank0=NVIDIA H100 80GB HBM3@h:0000:17:00.0,rank1=NVIDIA H100 80GB HBM3@h:0000:18:00.0");
}

TEST(CommJob, MpiRanksAcrossNodes) {
  const JobPlan plan = plan_from_ranks({rank_on("a", 0, "0000:17:00.0"), rank_on("a", 1, "0000:18:00.0"),
                                        rank_on("b", 0, "0000:17:00.0"), rank_on("b", 1, "0000:18:00.0")});
  EXPECT_TRUE(plan.mpi);
  EXPECT_EQ(plan.skip_reason, "");
  EXPECT_EQ(plan.error, "");
  EXPECT_EQ(plan.nodes, 2);
  EXPECT_EQ(plan.gpus.size(), 4u);
  EXPECT_EQ(first_host_bdfs(plan), "0000:17:00.0,0000:18:00.0");  // rank 0's host only
}

TEST(CommJob, MpiRanksWithoutGpus) {
  // The mpirun test on a machine without GPU: every rank skips with the same reason.
  const JobPlan none = plan_from_ranks({{"h", -1, "", "", 0, "no CUDA device"}, {"h", -1, "", "", 0, "no CUDA device"}});
  EXPECT_EQ(none.skip_reason, "needs 2 or more GPUs (found 0: rank 0 on h: no CUDA device)");
  const JobPlan partial = plan_from_ranks(
      {rank_on("a", 0, "0000:17:00.0"), rank_on("a", 1, "0000:18:00.0"), {"b", -1, "", "", 0, "no CUDA device"}});
  EXPECT_EQ(partial.skip_reason, "needs a GPU for every rank (rank 2 on b: no CUDA device)");
}

TEST(CommJob, TwoRanksOnOneGpuIsAnError) {
  const JobPlan plan = plan_from_ranks({rank_on("a", 0, "0000:17:00.0"), rank_on("a", 0, "0000:17:00.0")});
  EXPECT_EQ(plan.error, "ranks 0 and 1 on a both took GPU 0000:17:00.0: start one rank per GPU");
  // The same bus id on two hosts is two GPUs.
  EXPECT_EQ(plan_from_ranks({rank_on("a", 0, "0000:17:00.0"), rank_on("b", 0, "0000:17:00.0")}).error, "");
}

TEST(CommJob, UnknownMemoryMeansNoCap) {
  const JobPlan plan = plan_single_process({target(0, "0000:17:00.0"), target(1, "0000:18:00.0", 0)}, "h", "");
  EXPECT_EQ(smallest_memory(plan), 0u);
}

}  // namespace
}  // namespace pipecheck
