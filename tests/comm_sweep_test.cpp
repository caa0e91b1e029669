// Size sweep of the collectives probe: nccl-tests' size syntax and loop, the mode defaults, the
// GPU memory cap.
#include "comm/comm_sweep.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;

TEST(CommSweep, SizesParseAsNcclTestsDoes) {
  EXPECT_EQ(parse_message_size("8", "--minbytes"), 8u);
  EXPECT_EQ(parse_message_size("128K", "--minbytes"), 128u * 1024);
  EXPECT_EQ(parse_message_size("64m", "--maxbytes"), 64 * kMiB);
  EXPECT_EQ(parse_message_size("8G", "--maxbytes"), 8 * kGiB);
  EXPECT_EQ(parse_message_size("0.5G", "--maxbytes"), kGiB / 2);
}

TEST(CommSweep, BadSizesNameTheFlagAndText) {
  for (const char* bad : {"", "x", "-8", "8T", "8KB", "0", "1.5", "+3"}) {
    try {
      parse_message_size(bad, "--maxbytes");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--maxbytes '" + std::string(bad) + "'"), std::string::npos)
          << error.what();
    }
  }
}

TEST(CommSweep, FactorAndStepLoopsIncludeBothEnds) {
  EXPECT_EQ(sweep_sizes({8, 128, 2, 0}), (std::vector<std::uint64_t>{8, 16, 32, 64, 128}));
  EXPECT_EQ(sweep_sizes({8, 100, 2, 0}), (std::vector<std::uint64_t>{8, 16, 32, 64}));
  EXPECT_EQ(sweep_sizes({1000, 4000, 0, 1000}), (std::vector<std::uint64_t>{1000, 2000, 3000, 4000}));
  EXPECT_EQ(sweep_sizes({64, 64, 2, 0}), (std::vector<std::uint64_t>{64}));
  // A factor large enough to overflow ends the sweep instead of wrapping around.
  EXPECT_EQ(sweep_sizes({1ULL << 62, ~0ULL, 4, 0}).size(), 1u);
}

TEST(CommSweep, RefusesSweepsNcclTestsRefuses) {
  EXPECT_THROW(sweep_sizes({128, 8, 2, 0}), UsageError);    // min > max
  EXPECT_THROW(sweep_sizes({8, 128, 1, 0}), UsageError);    // factor 1 and no step
  EXPECT_THROW(sweep_sizes({0, 128, 2, 0}), UsageError);
  EXPECT_THROW(sweep_sizes({1, 1000000, 0, 1}), UsageError);  // a million sizes
}

TEST(CommSweep, ModeDefaultsEndAtABandwidthBoundSize) {
  const auto quick = sweep_sizes(default_sweep(ProbeMode::quick));
  EXPECT_EQ(quick.front(), 8u);
  EXPECT_EQ(quick.back(), 128 * kMiB);
  EXPECT_EQ(quick.size(), 7u);
  const auto standard = sweep_sizes(default_sweep(ProbeMode::standard));
  EXPECT_EQ(standard.back(), kGiB);
  EXPECT_EQ(standard.size(), 10u);
  const auto full = sweep_sizes(default_sweep(ProbeMode::full));
  EXPECT_EQ(full.back(), 8 * kGiB);
  EXPECT_EQ(full.size(), 31u);
}

TEST(CommSweep, MemoryCapsTheLargestSize) {
  EXPECT_EQ(max_size_for_memory(0), 0u);  // unknown memory: no cap
  EXPECT_EQ(max_size_for_memory(24 * kGiB), 8 * kGiB);
  std::size_t dropped = 0;
  const std::vector<std::uint64_t> sizes = {kGiB, 4 * kGiB, 16 * kGiB};
  EXPECT_EQ(cap_sizes(sizes, 8 * kGiB, dropped), (std::vector<std::uint64_t>{kGiB, 4 * kGiB}));
  EXPECT_EQ(dropped, 1u);
  EXPECT_EQ(cap_sizes(sizes, 0, dropped), sizes);
  EXPECT_EQ(dropped, 0u);
}

TEST(CommSweep, SizeText) {
  EXPECT_EQ(size_text(8), "8 B");
  EXPECT_EQ(size_text(4096), "4 KiB");
  EXPECT_EQ(size_text(kMiB), "1 MiB");
  EXPECT_EQ(size_text(3 * kGiB / 2), "1.5 GiB");
  EXPECT_EQ(size_text(996), "996 B");
}

}  // namespace
}  // namespace pipecheck
