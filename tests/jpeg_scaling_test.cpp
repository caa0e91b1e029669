// Thread-scaling arithmetic and the decode probe's flag parsing.
#include "decode/jpeg_scaling.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

TEST(JpegScaling, PowersOfTwoUpToMax) {
  EXPECT_EQ(power_of_two_threads(1), (std::vector<int>{1}));
  EXPECT_EQ(power_of_two_threads(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(power_of_two_threads(8), (std::vector<int>{1, 2, 4, 8}));
}

// Quick runs the pair the scaling verdict needs; the others sweep.
TEST(JpegScaling, DefaultThreadCountsByMode) {
  EXPECT_EQ(default_thread_counts(224, ProbeMode::quick), (std::vector<int>{1, 224}));
  EXPECT_EQ(default_thread_counts(1, ProbeMode::quick), (std::vector<int>{1}));
  EXPECT_EQ(default_thread_counts(6, ProbeMode::standard), power_of_two_threads(6));
  EXPECT_EQ(default_thread_counts(6, ProbeMode::full), power_of_two_threads(6));
}

TEST(JpegScaling, ParsesThreadCounts) {
  EXPECT_EQ(parse_thread_counts("4"), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(parse_thread_counts("6,1,2,2"), (std::vector<int>{1, 2, 6}));
  for (const char* bad : {"", "0", "a", "1,,2", "2,", "-1", "1.5"}) {
    try {
      parse_thread_counts(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("--threads ") + bad), std::string::npos);
    }
  }
}

TEST(JpegScaling, ParsesDimensions) {
  EXPECT_EQ(parse_dimensions("size", "2000x1500"), std::make_pair(2000, 1500));
  EXPECT_EQ(parse_dimensions("size", "64X48"), std::make_pair(64, 48));
  for (const char* bad : {"2000", "x5", "0x5", "20x", "axb", "20x5x"}) {
    try {
      parse_dimensions("train-size", bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("--train-size ") + bad), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace pipecheck
