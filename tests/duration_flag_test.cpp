// Durations on the command line: units, and the texts strtod would take that are no duration.
#include "app/duration_flag.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

TEST(DurationFlag, UnitsAndPlainSeconds) {
  EXPECT_EQ(parse_duration_seconds("0.5"), 0.5);
  EXPECT_EQ(parse_duration_seconds("90s"), 90);
  EXPECT_EQ(parse_duration_seconds("10min"), 600);
  EXPECT_EQ(duration_flag("--interval", "2"), 2);
}

TEST(DurationFlag, NanInfAndAbsurdLengthsAreRefused) {
  // "--interval nan" once sampled 12,000 times in 3 s: NaN passes every < and <= test.
  for (const char* text : {"nan", "NaN", "inf", "-inf", "infinity", "1e300", "400d", "367d", "9000h", "-1"}) {
    EXPECT_FALSE(parse_duration_seconds(text)) << text;
  }
  EXPECT_TRUE(parse_duration_seconds("8760h"));  // a year still is one
  try {
    duration_flag("--interval", "nan");
    ADD_FAILURE() << "no error for nan";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--interval: 'nan' is not a duration (e.g. 0.5, 90s, 10m, 2h)");
  }
}

}  // namespace
}  // namespace pipecheck
