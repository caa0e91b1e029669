// What each rank sends and what it must receive, for the data check (nccl-tests' #wrong): small
// whole numbers, index-scrambled so a misplaced element shows, and kept small enough that every
// sum NCCL can form is exact in bf16 (8 significant bits) and float, whatever its order.
// The kernels (comm_kernels.cu) and the host tests use the same inline formulas.
#pragma once

#include <cstdint>
#include <string>

#include "comm/comm_model.hpp"

#ifdef __CUDACC__
#define PIPECHECK_COMM_HD __host__ __device__
#else
#define PIPECHECK_COMM_HD
#endif

namespace pipecheck {

// Inputs are 0..modulus-1: with n ranks, a sum reaches (modulus-1) x n, which stays <= 256
// (exact in bf16) up to 256 ranks; the modulus is at most 8 and at least 2.
PIPECHECK_COMM_HD inline int comm_modulus(int ranks) {
  const int fit = ranks > 0 ? 256 / ranks + 1 : 8;
  return fit > 8 ? 8 : (fit < 2 ? 2 : fit);
}

// A scrambled index (splitmix64's finaliser), so that neighbouring elements differ unpredictably.
PIPECHECK_COMM_HD inline std::uint64_t comm_scramble(std::uint64_t i) {
  std::uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Element i of rank `rank`'s send buffer.
PIPECHECK_COMM_HD inline int comm_input(int rank, std::uint64_t i, int modulus) {
  return static_cast<int>((comm_scramble(i) + static_cast<std::uint64_t>(rank)) % static_cast<std::uint64_t>(modulus));
}

// Sum over ranks 0..ranks-1 of comm_input(q, i): (c + q) mod m runs through every residue once
// per m ranks, so whole cycles add m(m-1)/2 each and only the remainder is summed one by one.
PIPECHECK_COMM_HD inline std::uint64_t comm_input_sum(std::uint64_t i, int ranks, int modulus) {
  const auto m = static_cast<std::uint64_t>(modulus);
  const auto n = static_cast<std::uint64_t>(ranks);
  const std::uint64_t c = comm_scramble(i) % m;
  std::uint64_t sum = (n / m) * (m * (m - 1) / 2);
  for (std::uint64_t q = 0; q < n % m; ++q) sum += (c + q) % m;
  return sum;
}

// What rank `rank` of `ranks` must hold at receive index i after one operation whose counts
// are `counts` (broadcast from root 0).
PIPECHECK_COMM_HD inline std::uint64_t comm_expected(Collective collective, int rank, int ranks,
                                                     const CollectiveCounts& counts, std::uint64_t i) {
  const int modulus = comm_modulus(ranks);
  switch (collective) {
    case Collective::all_reduce:
      return comm_input_sum(i, ranks, modulus);
    case Collective::all_gather:
      // Block q of the result is rank q's send buffer.
      return static_cast<std::uint64_t>(
          comm_input(static_cast<int>(i / counts.send_count), i % counts.send_count, modulus));
    case Collective::reduce_scatter:
      // This rank's block of the element-wise sum.
      return comm_input_sum(static_cast<std::uint64_t>(rank) * counts.recv_count + i, ranks, modulus);
    case Collective::broadcast:
      return static_cast<std::uint64_t>(comm_input(0, i, modulus));
  }
  return 0;
}

// The comparison rule, one definition for the device kernel and its host replay: every
// expected value is a whole number exact in float and bf16, so anything but equality is wrong
// (`!(==)`, so the NaN poison of an element the collective never wrote is wrong too).
PIPECHECK_COMM_HD inline bool comm_element_wrong(float received, std::uint64_t expected) {
  return !(received == static_cast<float>(expected));
}

// What the check of one rank's receive buffer found: the wrong elements and the first of them.
struct CommCheck {
  std::uint64_t wrong = 0;
  std::uint64_t first_index = ~std::uint64_t{0};
  float first_value = 0;
};
// The host replay of the device check (count_wrong_kernel in comm_kernels.cu) over a receive
// buffer as floats (bf16 widened exactly).
CommCheck comm_check_received(const float* received, Collective collective, int rank, int ranks,
                              const CollectiveCounts& counts);
// "rank 1 element 17 holds nan, expected 5": the first wrong element of a rank, named.
std::string comm_wrong_element_text(const CommCheck& check, Collective collective, int rank, int ranks,
                                    const CollectiveCounts& counts);

// Why results of `dtype` over `ranks` ranks cannot be checked exactly ("" when they can):
// beyond 256 ranks a bf16 sum leaves the range where whole numbers are exact.
std::string data_check_limit(Collective collective, CommDtype dtype, int ranks);

// The verdict of a data check: "" when no element was wrong, else "data check: N of M elements
// wrong" (M summed over the ranks checked), and ", first: <first>" when the first is named.
std::string data_check_problem(std::uint64_t wrong, std::uint64_t checked, const std::string& first = "");

}  // namespace pipecheck
