// The cases pipecheck-comm registers and the parameters each result carries to the report.
#include "comm/comm_cases.hpp"

#include <gtest/gtest.h>

#include "comm/comm_data.hpp"
#include "core/benchmark_json.hpp"

namespace pipecheck {
namespace {

CommOptions options_for(std::vector<Collective> collectives, std::vector<CommDtype> dtypes) {
  CommOptions options;
  options.collectives = std::move(collectives);
  options.dtypes = std::move(dtypes);
  return options;
}

TEST(CommCases, CollectiveThenDtypeThenSize) {
  const auto cases = comm_cases(options_for({Collective::all_reduce, Collective::broadcast},
                                            {CommDtype::float32, CommDtype::bf16}),
                                {8, 1024}, 2);
  ASSERT_EQ(cases.size(), 8u);
  EXPECT_EQ(cases[0].collective, Collective::all_reduce);
  EXPECT_EQ(cases[0].dtype, CommDtype::float32);
  EXPECT_EQ(cases[0].size_bytes, 8u);
  EXPECT_EQ(cases[1].size_bytes, 1024u);
  EXPECT_EQ(cases[2].dtype, CommDtype::bf16);
  EXPECT_EQ(cases[4].collective, Collective::broadcast);
  EXPECT_EQ(cases[2].counts.param_count, 4u);  // 8 bytes of bf16
}

TEST(CommCases, SizesBelowOneElementPerRankAndRepeatsAreLeftOut) {
  // 8 ranks: nccl-tests rounds each rank's block down to whole 16 bytes, so an all-gather of
  // float below 128 bytes gives a rank nothing; 128 bytes give it four elements.
  const auto cases = comm_cases(options_for({Collective::all_gather}, {CommDtype::float32}), {8, 16, 64, 128, 256}, 8);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].counts.bytes, 128u);
  // 3 ranks, 48 and 56 bytes both round to four floats per rank: one case.
  const auto rounded = comm_cases(options_for({Collective::reduce_scatter}, {CommDtype::float32}), {48, 56, 96}, 3);
  ASSERT_EQ(rounded.size(), 2u);
  EXPECT_EQ(rounded[0].counts.bytes, 48u);
  EXPECT_EQ(rounded[1].counts.bytes, 96u);
}

TEST(CommCases, NamesAreStableMeasurementKeys) {
  const auto cases = comm_cases(options_for({Collective::reduce_scatter}, {CommDtype::bf16}), {1ULL << 30}, 8);
  ASSERT_EQ(cases.size(), 1u);
  const std::string name = comm_case_name(cases[0], 8);
  EXPECT_EQ(name, "comm/reduce_scatter/bf16/ranks:8/bytes:1073741824");
  // What Google Benchmark appends for a fixed iteration count and manual time is dropped.
  EXPECT_EQ(measurement_key(name + "/iterations:1/manual_time"), name);
}

TEST(CommCases, ParamsCarryWhatTheReportAndACompareNeed) {
  const auto cases = comm_cases(options_for({Collective::all_reduce}, {CommDtype::float32}), {1ULL << 20}, 16);
  const CommJobLabel job{16, 2, "mpi", "0000:17:00.0,0000:18:00.0", "2.28.3", "NCCL_ALGO=Ring", 20};
  const auto params = comm_case_params(cases[0], job, "yes", 0);
  EXPECT_EQ(params.at("what"), "all_reduce float, 16 GPUs on 2 nodes, 1 MiB");
  EXPECT_EQ(params.at("collective"), "all_reduce");
  EXPECT_EQ(params.at("dtype"), "float");
  EXPECT_EQ(params.at("op"), "sum");
  EXPECT_EQ(params.at("bytes"), "1048576");
  EXPECT_EQ(params.at("count"), "262144");
  EXPECT_EQ(params.at("ranks"), "16");
  EXPECT_EQ(params.at("nodes"), "2");
  EXPECT_EQ(params.at("mode"), "mpi");
  EXPECT_EQ(params.at("gpu_bdfs"), "0000:17:00.0,0000:18:00.0");
  EXPECT_EQ(params.at("bus_factor"), "1.875");
  EXPECT_EQ(params.at("iters"), "20");
  EXPECT_EQ(params.at("verified"), "yes");
  EXPECT_EQ(params.at("wrong"), "0");
  EXPECT_EQ(params.at("nccl_version"), "2.28.3");
  EXPECT_EQ(params.at("nccl_env"), "NCCL_ALGO=Ring");
  EXPECT_EQ(params.at("figure"), "busbw");
  const CommJobLabel one_node{2, 1, "single_process", "", "", "none", 20};
  EXPECT_EQ(comm_case_params(cases[0], one_node, "no", 3).at("what"), "all_reduce float, 2 GPUs, 1 MiB");
  // Every value survives the label encoding (no ';').
  for (const auto& [key, value] : params) EXPECT_EQ(value.find(';'), std::string::npos) << key;
}

// One rank (nccl-tests' -g 1): the collectives still run and are checked; busbw is 0 by the
// formula except broadcast's, so the figure is algbw, and the what says the report leaves it be.
TEST(CommCases, OneRankCarriesAlgbwAndSaysSo) {
  const auto options = options_for({Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                                    Collective::broadcast},
                                   {CommDtype::float32});
  const auto cases = comm_cases(options, {1ULL << 20}, 1);
  ASSERT_EQ(cases.size(), 4u);
  for (const CommCase& c : cases) {
    EXPECT_EQ(c.counts.bytes, 1ULL << 20) << collective_info(c.collective).name;  // the whole array, one block
    EXPECT_EQ(c.counts.send_count, c.counts.recv_count) << collective_info(c.collective).name;
  }
  EXPECT_EQ(bus_factor(Collective::all_reduce, 1), 0);
  EXPECT_EQ(bus_factor(Collective::all_gather, 1), 0);
  EXPECT_EQ(bus_factor(Collective::broadcast, 1), 1);
  const CommJobLabel one{1, 1, "single_process", "0000:17:00.0", "2.28.3", "none", 20};
  const auto params = comm_case_params(cases[0], one, "yes", 0);
  EXPECT_EQ(params.at("figure"), "algbw");
  EXPECT_EQ(params.at("bus_factor"), "0");
  EXPECT_EQ(params.at("what"), "all_reduce float, 1 GPU (one rank: algbw, not judged), 1 MiB");
  EXPECT_STREQ(comm_figure(1), "algbw");
  EXPECT_STREQ(comm_figure(2), "busbw");
  // The data check still means something on one rank: each output must be the rank's own input.
  for (const CommCase& c : cases) {
    for (const std::uint64_t i : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{77}, c.counts.recv_count - 1}) {
      EXPECT_EQ(comm_expected(c.collective, 0, 1, c.counts, i),
                static_cast<std::uint64_t>(comm_input(0, i, comm_modulus(1))))
          << collective_info(c.collective).name << " element " << i;
    }
  }
}

}  // namespace
}  // namespace pipecheck
