// The collectives' work model against nccl-tests' own arithmetic (src/*.cu getCollByteCount and
// getBw, doc/PERFORMANCE.md): bus-bandwidth factors, element counts, algbw/busbw, buffer shifts.
#include "comm/comm_model.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;

TEST(CommModel, BusFactorsOfNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_gather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::reduce_scatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 1), 0.0);  // one rank moves nothing
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 0), 0.0);
}

TEST(CommModel, AllReduceAndBroadcastCountTheWholeBuffer) {
  for (Collective c : {Collective::all_reduce, Collective::broadcast}) {
    const CollectiveCounts counts = collective_counts(c, 64 * kMiB, 4, 8);
    EXPECT_EQ(counts.param_count, 16 * kMiB);
    EXPECT_EQ(counts.send_count, 16 * kMiB);
    EXPECT_EQ(counts.recv_count, 16 * kMiB);
    EXPECT_EQ(counts.bytes, 64 * kMiB);
  }
  // A size that is not a whole number of elements rounds down (nccl-tests: count = size / word).
  EXPECT_EQ(collective_counts(Collective::all_reduce, 10, 4, 2).bytes, 8u);
}

TEST(CommModel, AllGatherAndReduceScatterSizeIsTheTotalArray) {
  // nccl-tests: -b/-e give the whole array; each rank sends (all-gather) or receives
  // (reduce-scatter) count/n rounded down to whole 16 bytes, and the "size" column is max(send, recv).
  const CollectiveCounts gather = collective_counts(Collective::all_gather, 1000, 4, 3);
  EXPECT_EQ(gather.param_count, 80u);  // 250 elements / 3 ranks = 83, down to a multiple of 4 floats
  EXPECT_EQ(gather.send_count, 80u);
  EXPECT_EQ(gather.recv_count, 240u);
  EXPECT_EQ(gather.bytes, 960u);
  const CollectiveCounts scatter = collective_counts(Collective::reduce_scatter, 1000, 4, 3);
  EXPECT_EQ(scatter.param_count, 80u);
  EXPECT_EQ(scatter.send_count, 240u);
  EXPECT_EQ(scatter.recv_count, 80u);
  EXPECT_EQ(scatter.bytes, 960u);
  // bf16: blocks of 8 elements (1000 bytes = 500 elements / 3 = 166, down to 160).
  EXPECT_EQ(collective_counts(Collective::all_gather, 1000, 2, 3).param_count, 160u);
  // Too small to give each rank an element: nothing to run.
  EXPECT_EQ(collective_counts(Collective::all_gather, 8, 4, 8).param_count, 0u);
}

TEST(CommModel, AlgbwIsSizeOverTimeBusbwAppliesTheFactor) {
  // 1 GiB all-reduce on 8 ranks in 5 ms: algbw 214.7 GB/s, busbw x 1.75.
  const CollectiveCounts counts = collective_counts(Collective::all_reduce, 1ULL << 30, 4, 8);
  const Bandwidth bw = collective_bandwidth(Collective::all_reduce, counts, 8, 0.005);
  EXPECT_NEAR(bw.algbw_gbps, 1073741824.0 / 1e9 / 0.005, 1e-9);
  EXPECT_NEAR(bw.busbw_gbps, bw.algbw_gbps * 1.75, 1e-9);
  // All-gather: nccl-tests' count x typesize x nranks is the whole received array.
  const CollectiveCounts gather = collective_counts(Collective::all_gather, 8 * kMiB, 2, 4);
  const Bandwidth g = collective_bandwidth(Collective::all_gather, gather, 4, 0.001);
  EXPECT_NEAR(g.algbw_gbps, static_cast<double>(gather.param_count * 2 * 4) / 1e9 / 0.001, 1e-9);
  EXPECT_NEAR(g.busbw_gbps, g.algbw_gbps * 0.75, 1e-9);
  EXPECT_EQ(collective_bandwidth(Collective::broadcast, counts, 8, 0).busbw_gbps, 0.0);
}

TEST(CommModel, IterationsShiftThroughTheBufferLikeNcclTests) {
  EXPECT_EQ(iteration_offset(1024, 4096, 0), 0u);
  EXPECT_EQ(iteration_offset(1024, 4096, 1), 1024u);
  EXPECT_EQ(iteration_offset(1024, 4096, 3), 3072u);
  EXPECT_EQ(iteration_offset(1024, 4096, 4), 0u);  // wraps: the operation never passes the end
  EXPECT_EQ(iteration_offset(1000, 4096, 4), 0u);
  EXPECT_EQ(iteration_offset(1000, 4096, 3), 3000u);
  EXPECT_EQ(iteration_offset(4096, 4096, 7), 0u);  // the largest size never moves
  EXPECT_EQ(iteration_offset(0, 4096, 7), 0u);
}

TEST(CommModel, NamesParseInTheirUsualSpellings) {
  EXPECT_EQ(parse_collective("all_reduce"), Collective::all_reduce);
  EXPECT_EQ(parse_collective("AllReduce"), Collective::all_reduce);
  EXPECT_EQ(parse_collective("reduce-scatter"), Collective::reduce_scatter);
  EXPECT_EQ(parse_collective("alltoall"), std::nullopt);
  EXPECT_EQ(parse_comm_dtype("float"), CommDtype::float32);
  EXPECT_EQ(parse_comm_dtype("fp32"), CommDtype::float32);
  EXPECT_EQ(parse_comm_dtype("bfloat16"), CommDtype::bf16);
  EXPECT_EQ(parse_comm_dtype("half"), std::nullopt);
  EXPECT_STREQ(collective_info(Collective::all_gather).nccl_tests, "all_gather_perf");
  EXPECT_EQ(comm_dtype_info(CommDtype::bf16).bytes, 2);
  EXPECT_EQ(collectives().front().collective, Collective::all_reduce);  // the headline first
}

}  // namespace
}  // namespace pipecheck
