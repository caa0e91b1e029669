// HBM work model: bytes moved per op (BabelStream's counting), array sizing, launch geometry
// and the verification arithmetic.
#include "memory/hbm_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace pipecheck {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;

TEST(HbmModel, BytesMovedPerOp) {
  const std::uint64_t n = 1000;
  EXPECT_EQ(hbm_bytes_moved(HbmOp::read, n), 1 * 8 * n);
  EXPECT_EQ(hbm_bytes_moved(HbmOp::write, n), 1 * 8 * n);
  EXPECT_EQ(hbm_bytes_moved(HbmOp::copy, n), 2 * 8 * n);
  EXPECT_EQ(hbm_bytes_moved(HbmOp::triad, n), 3 * 8 * n);
  EXPECT_EQ(hbm_bytes_moved(HbmOp::d2d_memcpy, n), 2 * 8 * n);
  EXPECT_EQ(hbm_ops().size(), 5u);
  EXPECT_STREQ(hbm_op_info(HbmOp::d2d_memcpy).name, "d2d_memcpy");
}

TEST(HbmModel, ArraysBeyondL2AndAtLeastOneGiB) {
  const std::uint64_t h200_l2 = 60 * kMiB;
  const std::uint64_t h200_memory = 141ULL * 1000 * 1000 * 1000;
  EXPECT_EQ(hbm_array_bytes(ProbeMode::quick, h200_l2, h200_memory), kGiB);
  EXPECT_EQ(hbm_array_bytes(ProbeMode::standard, h200_l2, h200_memory), 2 * kGiB);
  EXPECT_EQ(hbm_array_bytes(ProbeMode::full, h200_l2, h200_memory), 4 * kGiB);
  // A huge L2 (a future part): 4x L2 wins over the floor.
  EXPECT_EQ(hbm_array_bytes(ProbeMode::quick, 512 * kMiB, h200_memory), 2 * kGiB);
  // Three arrays must fit: a small card caps each at a quarter of its memory.
  EXPECT_EQ(hbm_array_bytes(ProbeMode::standard, 4 * kMiB, 2 * kGiB), 512 * kMiB);
  EXPECT_EQ(hbm_array_bytes(ProbeMode::standard, 4 * kMiB, 2 * kGiB) % kHbmVectorBytes, 0u);
}

TEST(HbmModel, SamplesLastAtLeastTwoMilliseconds) {
  // A 1 GiB copy on an H200 (~4.3 TB/s, 2 GiB moved): ~0.5 ms a pass, so 4 passes a sample.
  EXPECT_EQ(hbm_passes_per_sample(0.5), 4);
  EXPECT_EQ(hbm_passes_per_sample(0.7), 3);   // 2.1 ms
  EXPECT_EQ(hbm_passes_per_sample(2.0), 1);   // already long enough
  EXPECT_EQ(hbm_passes_per_sample(40.0), 1);
  EXPECT_EQ(hbm_passes_per_sample(1e-6), 1000);  // capped
  EXPECT_EQ(hbm_passes_per_sample(0), 1);        // no sizing: one pass, as before
  for (double ms : {0.013, 0.25, 0.49, 0.51, 1.3, 1.99}) {
    const int passes = hbm_passes_per_sample(ms);
    EXPECT_GE(passes * ms, kHbmSampleTargetMs) << ms;
    EXPECT_LT((passes - 1) * ms, kHbmSampleTargetMs) << ms;  // no more than needed
  }
}

TEST(HbmModel, GridFillsEverySmButNoMoreThanTheWork) {
  EXPECT_EQ(hbm_grid_blocks(132, 8, 1ULL << 27, 256), 132 * 8);
  EXPECT_EQ(hbm_grid_blocks(132, 8, 1000, 256), 4);
  EXPECT_EQ(hbm_grid_blocks(132, 0, 1ULL << 27, 256), 132);  // occupancy query said 0: still run
}

TEST(HbmModel, InitialValuesAreExactAndNonZero) {
  for (std::uint64_t i : {0ULL, 1ULL, 511ULL, 1023ULL, 1024ULL, 123456789ULL}) {
    EXPECT_GE(hbm_init_a(i), 1.0);
    EXPECT_GT(hbm_init_b(i), 0.0);
    EXPECT_GT(hbm_init_c(i), 0.0);
    EXPECT_EQ(hbm_triad_value(i), hbm_init_b(i) + 2.0 * hbm_init_c(i));
  }
  EXPECT_NE(hbm_init_a(0), hbm_init_a(1));  // index-dependent: a misplaced element is seen
  EXPECT_NE(hbm_fill_value(1), hbm_fill_value(2));
}

TEST(HbmModel, ExpectedReadSumMatchesBruteForce) {
  for (std::uint64_t n : {0ULL, 1ULL, 2ULL, 1023ULL, 1024ULL, 1025ULL, 5000ULL, 100000ULL}) {
    double sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) sum += hbm_init_a(i);
    EXPECT_EQ(hbm_expected_read_sum(n), sum) << n;
  }
  // 2 GiB of doubles: the sum is still an exact double (39 significant bits).
  const std::uint64_t n = 2 * kGiB / 8;
  EXPECT_EQ(hbm_expected_read_sum(n), static_cast<double>(n / 1024) * (1024.0 + 511.5));
}

TEST(HbmModel, VerifyReportsWrongSumAndMismatches) {
  const HbmCheck clean;
  EXPECT_EQ(hbm_verify(HbmOp::read, 4096, clean, hbm_expected_read_sum(4096), 1.0), "");
  const std::string reduction = hbm_verify(HbmOp::read, 4096, clean, hbm_expected_read_sum(4096) + 1.0 / 1024, 1.0);
  EXPECT_NE(reduction.find("every element of a holds its value, so the reduction itself was wrong"), std::string::npos)
      << reduction;
  EXPECT_EQ(hbm_verify(HbmOp::copy, 4096, clean, 0, 1.0), "");
  const std::string wrong = hbm_verify(HbmOp::triad, 4096, {3, 17, 2.5}, 0, 1.0);
  EXPECT_NE(wrong.find("triad: 3 of 4096 elements hold a wrong value, first a[17] = 2.5, expected 1.166015625"),
            std::string::npos) << wrong;
}

// The device check's rule replayed on the host: one element of each op's array changed is
// caught, counted once and named with its index and value; NaN is wrong too.
TEST(HbmModel, OneCorruptedElementIsCaughtAndNamedForEveryOp) {
  const std::uint64_t n = 1 << 14;
  const double fill = hbm_fill_value(41);
  for (const auto& info : hbm_ops()) {
    const HbmExpect expect = hbm_expect_of(info.op);
    std::vector<double> array(n);
    for (std::uint64_t i = 0; i < n; ++i) array[i] = hbm_expected_value(expect, i, fill);
    EXPECT_EQ(hbm_check_array(array.data(), n, expect, fill).mismatches, 0u) << info.name;
    array[9999] = std::nextafter(array[9999], 100.0);  // one ulp
    const HbmCheck check = hbm_check_array(array.data(), n, expect, fill);
    EXPECT_EQ(check.mismatches, 1u) << info.name;
    EXPECT_EQ(check.first_index, 9999u) << info.name;
    const double read_sum = info.op == HbmOp::read ? hbm_expected_read_sum(n) + 1 : 0;
    const std::string text = hbm_verify(info.op, n, check, read_sum, fill);
    const std::string named = std::string(hbm_checked_array(info.op)) + "[9999] = ";
    EXPECT_NE(text.find(named), std::string::npos) << info.name << ": " << text;
    array[5] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(hbm_check_array(array.data(), n, expect, fill).mismatches, 2u) << info.name;
    EXPECT_EQ(hbm_check_array(array.data(), n, expect, fill).first_index, 5u) << info.name;
  }
}

}  // namespace
}  // namespace pipecheck
