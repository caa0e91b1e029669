// Statistics over repetitions.
#include "core/measurement.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(Summarize, OddCountTakesMiddle) {
  const Statistics s = summarize({3.0, 1.0, 2.0});
  EXPECT_DOUBLE_EQ(s.median, 2.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 3.0);
  EXPECT_EQ(s.samples, 3);
}

TEST(Summarize, EvenCountAveragesMiddlePair) {
  EXPECT_DOUBLE_EQ(summarize({4.0, 1.0, 2.0, 3.0}).median, 2.5);
}

TEST(Summarize, EmptyHasNoSamples) { EXPECT_EQ(summarize({}).samples, 0); }

}  // namespace
}  // namespace pipecheck
