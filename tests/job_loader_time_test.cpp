// The job's own loader's time a sample: each set's mean weighted by the dataset's files, the fast
// end of the weighted mean's 95% interval as the bound, a set the job never met named, and the
// older reports without per-set times left to the caller.
#include "budget/job_loader_time.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/measurement_records.hpp"

namespace pipecheck {
namespace {

using testing::contains;

Measurement job_case(std::map<std::string, std::string> params) {
  params.insert({{"op", "interpreter"}, {"path", "job"}});
  return testing::measure("decode/interpreter", "decode", 100, "images/s", params);
}

TEST(JobLoaderTime, WeighsEachSetsMeanByTheDatasetsFiles) {
  // The rounds met baseline 400 times and progressive 40: the dataset holds them 4 to 1, not 10 to 1.
  const Measurement job = job_case({{"job_ms_baseline", "4"}, {"job_sd_ms_baseline", "1"}, {"job_n_baseline", "400"},
                                    {"job_ms_progressive", "10"}, {"job_sd_ms_progressive", "2"}, {"job_n_progressive", "40"},
                                    {"job_other_ms", "0.25"}});
  const auto time = job_loader_time(job, {{"baseline", 40}, {"progressive", 10}, {"cmyk", 0}});
  ASSERT_TRUE(time);
  EXPECT_NEAR(time->mean_seconds, 0.8 * 4e-3 + 0.2 * 10e-3, 1e-12);
  // Standard error of the weighted mean: sqrt(0.8^2 x 1^2 / 400 + 0.2^2 x 2^2 / 40) ms.
  const double error = std::sqrt(0.64 / 400 + 0.04 * 4 / 40) * 1e-3;
  EXPECT_NEAR(time->fastest_seconds, 5.2e-3 - 1.96 * error, 1e-12);
  EXPECT_NEAR(time->other_seconds, 0.25e-3, 1e-12);
  EXPECT_EQ(time->samples, 440);
  EXPECT_TRUE(contains(time->words, "baseline 4.00 ms x 80.0%, progressive 10.0 ms x 20.0% = 5.20 ms a sample, the fast end of its "
                                    "95% interval 5.05 ms (440 samples)"))
      << time->words;
}

TEST(JobLoaderTime, ASetTheJobNeverMetIsLeftOutAndNamed) {
  const Measurement job = job_case({{"job_ms_baseline", "4"}, {"job_sd_ms_baseline", "0"}, {"job_n_baseline", "30"}});
  const auto time = job_loader_time(job, {{"baseline", 40}, {"cmyk", 2}});
  ASSERT_TRUE(time);
  EXPECT_NEAR(time->mean_seconds, 4e-3, 1e-12);
  EXPECT_NEAR(time->fastest_seconds, 4e-3, 1e-12);  // no spread: the mean itself
  EXPECT_TRUE(contains(time->words, "not met in the job's rounds, left out: cmyk (2 files)")) << time->words;
}

TEST(JobLoaderTime, AFewWildSamplesCannotHalveTheTime) {
  const Measurement job = job_case({{"job_ms_baseline", "4"}, {"job_sd_ms_baseline", "40"}, {"job_n_baseline", "2"}});
  const auto time = job_loader_time(job, {{"baseline", 1}});
  ASSERT_TRUE(time);
  EXPECT_NEAR(time->fastest_seconds, 2e-3, 1e-12);
}

TEST(JobLoaderTime, NoPerSetTimesIsNoFigure) {
  // Reports written before the per-set times were kept, and labels that are no numbers.
  EXPECT_FALSE(job_loader_time(job_case({}), {{"baseline", 40}}));
  EXPECT_FALSE(job_loader_time(job_case({{"job_ms_baseline", "fast"}, {"job_n_baseline", "3"}}), {{"baseline", 40}}));
  EXPECT_FALSE(job_loader_time(job_case({{"job_ms_baseline", "4"}, {"job_n_baseline", "0"}}), {{"baseline", 40}}));
  // A set of no files weighs nothing, met or not.
  EXPECT_FALSE(job_loader_time(job_case({{"job_ms_cmyk", "4"}, {"job_n_cmyk", "3"}}), {{"baseline", 40}, {"cmyk", 0}}));
}

}  // namespace
}  // namespace pipecheck
