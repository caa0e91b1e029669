// The data check's arithmetic, replayed on the host: each collective computed element by element
// from every rank's inputs must give what comm_expected says, and every sum must be exact in bf16.
#include "comm/comm_data.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace pipecheck {
namespace {

// What rank `rank` receives, computed the slow way from every rank's send buffer.
std::uint64_t replay(Collective collective, int rank, int ranks, const CollectiveCounts& counts, std::uint64_t i) {
  const int m = comm_modulus(ranks);
  std::uint64_t sum = 0;
  switch (collective) {
    case Collective::all_reduce:
      for (int q = 0; q < ranks; ++q) sum += static_cast<std::uint64_t>(comm_input(q, i, m));
      return sum;
    case Collective::reduce_scatter:
      for (int q = 0; q < ranks; ++q) {
        sum += static_cast<std::uint64_t>(comm_input(q, static_cast<std::uint64_t>(rank) * counts.recv_count + i, m));
      }
      return sum;
    case Collective::all_gather:
      return static_cast<std::uint64_t>(
          comm_input(static_cast<int>(i / counts.send_count), i % counts.send_count, m));
    case Collective::broadcast:
      return static_cast<std::uint64_t>(comm_input(0, i, m));
  }
  return 0;
}

TEST(CommData, ExpectedMatchesAReplayOfEveryCollective) {
  for (int ranks : {2, 3, 8, 13}) {
    for (const auto& info : collectives()) {
      const CollectiveCounts counts = collective_counts(info.collective, 4096, 4, ranks);
      for (int rank = 0; rank < ranks; ++rank) {
        for (std::uint64_t i = 0; i < counts.recv_count; ++i) {
          ASSERT_EQ(comm_expected(info.collective, rank, ranks, counts, i), replay(info.collective, rank, ranks, counts, i))
              << info.name << " ranks " << ranks << " rank " << rank << " element " << i;
        }
      }
    }
  }
}

TEST(CommData, ClosedFormSumOverManyRanks) {
  for (int ranks : {1, 7, 64, 100, 255, 256, 1000}) {
    const int m = comm_modulus(ranks);
    for (std::uint64_t i = 0; i < 200; ++i) {
      std::uint64_t slow = 0;
      for (int q = 0; q < ranks; ++q) slow += static_cast<std::uint64_t>(comm_input(q, i, m));
      ASSERT_EQ(comm_input_sum(i, ranks, m), slow) << ranks << " ranks, element " << i;
    }
  }
}

TEST(CommData, SumsStayExactInBf16UpTo256Ranks) {
  // bf16 holds every whole number up to 256 exactly: the largest possible sum must not pass it.
  for (int ranks = 1; ranks <= 256; ++ranks) {
    const int m = comm_modulus(ranks);
    EXPECT_GE(m, 2);
    EXPECT_LE(m, 8);
    EXPECT_LE((m - 1) * ranks, 256) << ranks;
  }
  EXPECT_EQ(comm_modulus(8), 8);
  EXPECT_EQ(data_check_limit(Collective::all_reduce, CommDtype::bf16, 256), "");
  EXPECT_NE(data_check_limit(Collective::all_reduce, CommDtype::bf16, 257), "");
  EXPECT_EQ(data_check_limit(Collective::all_gather, CommDtype::bf16, 1024), "");  // no sums
  EXPECT_EQ(data_check_limit(Collective::all_reduce, CommDtype::float32, 4096), "");
}

TEST(CommData, InputsDependOnIndexAndRank) {
  // A misplaced element or block must be able to show: neighbouring inputs differ often.
  int same_neighbour = 0;
  int same_rank = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    if (comm_input(0, i, 8) == comm_input(0, i + 1, 8)) ++same_neighbour;
    if (comm_input(0, i, 8) == comm_input(1, i, 8)) ++same_rank;
  }
  EXPECT_LT(same_neighbour, 250);  // about 1 in 8 by chance
  EXPECT_EQ(same_rank, 0);         // the next rank's input is always one more, mod 8
}

TEST(CommData, ProblemText) {
  EXPECT_EQ(data_check_problem(0, 100), "");
  EXPECT_EQ(data_check_problem(3, 100), "data check: 3 of 100 elements wrong");
  EXPECT_EQ(data_check_problem(3, 100, "rank 1 element 17 holds nan, expected 5"),
            "data check: 3 of 100 elements wrong, first: rank 1 element 17 holds nan, expected 5");
}

// The device check's rule replayed on the host over what each rank receives: one element
// changed, or left as the NaN poison, is caught, counted once and named with its rank and index.
TEST(CommData, OneWrongReceivedElementIsCaughtAndNamedForEveryCollective) {
  const int ranks = 4;
  for (const auto& info : collectives()) {
    const CollectiveCounts counts = collective_counts(info.collective, 4096, 4, ranks);
    for (int rank = 0; rank < ranks; ++rank) {
      std::vector<float> received(counts.recv_count);
      for (std::uint64_t i = 0; i < counts.recv_count; ++i) {
        received[i] = static_cast<float>(replay(info.collective, rank, ranks, counts, i));
      }
      EXPECT_EQ(comm_check_received(received.data(), info.collective, rank, ranks, counts).wrong, 0u) << info.name;
      const std::uint64_t at = counts.recv_count / 2 + 3;
      received[at] += 1;
      CommCheck check = comm_check_received(received.data(), info.collective, rank, ranks, counts);
      EXPECT_EQ(check.wrong, 1u) << info.name;
      EXPECT_EQ(check.first_index, at) << info.name;
      const std::string named = comm_wrong_element_text(check, info.collective, rank, ranks, counts);
      EXPECT_EQ(named, "rank " + std::to_string(rank) + " element " + std::to_string(at) + " holds " +
                           std::to_string(static_cast<int>(received[at])) + ", expected " +
                           std::to_string(static_cast<int>(received[at]) - 1))
          << info.name;
      received[1] = std::numeric_limits<float>::quiet_NaN();  // never written by the collective
      check = comm_check_received(received.data(), info.collective, rank, ranks, counts);
      EXPECT_EQ(check.wrong, 2u) << info.name;
      EXPECT_EQ(check.first_index, 1u) << info.name;
      EXPECT_NE(comm_wrong_element_text(check, info.collective, rank, ranks, counts).find("holds nan"),
                std::string::npos);
    }
  }
}

}  // namespace
}  // namespace pipecheck
