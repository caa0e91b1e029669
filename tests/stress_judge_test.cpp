// The stress verdicts this issue added: a burn rate above its physical ceiling (or the CPU's
// sanity bound) is invalid with the sentence; injected faults must be caught; an interrupted run
// is never a pass; and the partial last interval reports no rate.
#include <gtest/gtest.h>

#include "stress/stress_judge.hpp"
#include "stress/telemetry_sampler.hpp"

namespace pipecheck {
namespace {

Ceiling gflops_ceiling(double value) { return Ceiling{value, "GFLOP/s", "theoretical", "test"}; }

StressSummary cpu_summary(double gflops) {
  StressSummary summary;
  summary.stopped_by = "duration";
  summary.cpu.enabled = true;
  summary.cpu.sustained_gflops = gflops;
  summary.cpu.sanity_bound = Ceiling{384, "GFLOP/s", "sanity bound", "384 GFLOP/s = 2 cores x 6 GHz x 32"};
  summary.cpu.ceiling = CeilingResult::unknown("no cpufreq");
  return summary;
}

TEST(StressJudge, AboveCeilingIsTheSentence) {
  EXPECT_FALSE(above_ceiling(100, gflops_ceiling(100)));
  EXPECT_FALSE(above_ceiling(105, gflops_ceiling(100)));  // the 5% of sample timing
  EXPECT_EQ(above_ceiling(78880.2, gflops_ceiling(384)).value_or(""),
            "measured 78880.2 GFLOP/s, above the physical ceiling 384 GFLOP/s: the probe measured something else, "
            "or the ceiling is wrong");
  EXPECT_EQ(above_ceiling(2000, Ceiling{989.4, "TFLOP/s", "vendor spec", ""}).value_or(""),
            "measured 2000 TFLOP/s, above the physical ceiling 989.4 TFLOP/s: the probe measured something else, "
            "or the ceiling is wrong");
}

TEST(StressJudge, TheIssue12BurnIsInvalidAgainstTheSanityBound) {
  StressSummary summary = cpu_summary(78880.2);  // what the hoisted burn claimed
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "invalid");
  EXPECT_EQ(summary.cpu.verdict, "invalid");
  EXPECT_EQ(summary.exit_code, 1);
  ASSERT_EQ(summary.reasons.size(), 1u);
  EXPECT_EQ(summary.reasons[0],
            "cpu: measured 78880.2 GFLOP/s, above the physical ceiling 384 GFLOP/s: the probe measured something "
            "else, or the ceiling is wrong");
  EXPECT_NEAR(*summary.cpu.percent_of_ceiling, 100 * 78880.2 / 384, 1e-9);
  const auto json = stress_summary_json(summary);
  EXPECT_EQ(json["verdict"], "invalid");
  EXPECT_EQ(json["cpu"]["sanity_bound"]["value"], 384.0);
  EXPECT_TRUE(json["cpu"]["ceiling"].is_null());
  EXPECT_EQ(json["cpu"]["ceiling_unknown"], "no cpufreq");
}

TEST(StressJudge, AKnownCeilingWinsOverTheSanityBound) {
  StressSummary summary = cpu_summary(120);
  summary.cpu.ceiling = CeilingResult::known(gflops_ceiling(100));
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "invalid");
  EXPECT_NEAR(*summary.cpu.percent_of_ceiling, 120, 1e-9);
  summary = cpu_summary(90);
  summary.cpu.ceiling = CeilingResult::known(gflops_ceiling(100));
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "pass");
  EXPECT_EQ(summary.exit_code, 0);
  EXPECT_NE(render_stress_summary(summary).find("ceiling test: 90% of it"), std::string::npos)
      << render_stress_summary(summary);
}

TEST(StressJudge, AGpuAboveItsPeakIsInvalid) {
  StressSummary summary;
  GpuStressSummary gpu;
  gpu.index = 1;
  gpu.sustained_tflops = 1500;
  gpu.ceiling = CeilingResult::known(Ceiling{989.4, "TFLOP/s", "vendor spec", "989.4 TFLOP/s vendor spec (H100 SXM)"});
  summary.gpus.push_back(gpu);
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "invalid");
  EXPECT_EQ(summary.gpus[0].verdict, "invalid");
  ASSERT_FALSE(summary.reasons.empty());
  EXPECT_EQ(summary.reasons[0].rfind("gpu1: measured 1500 TFLOP/s, above the physical ceiling 989.4 TFLOP/s", 0), 0u)
      << summary.reasons[0];
  // Below it: pass, with its share; an unknown GPU is not held against anything.
  summary.gpus[0].sustained_tflops = 700;
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "pass");
  EXPECT_NEAR(*summary.gpus[0].percent_of_ceiling, 70.75, 0.01);
  summary.gpus[0].ceiling = CeilingResult::unknown("no vendor spec");
  summary.gpus[0].sustained_tflops = 1e9;
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "pass");
}

TEST(StressJudge, InjectedFaultsMustBeCaught) {
  StressSummary summary = cpu_summary(50);
  summary.cpu.injected_faults = 5;
  summary.cpu.wrong_results = 5;
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "fail");
  EXPECT_EQ(summary.exit_code, 1);
  ASSERT_EQ(summary.reasons.size(), 1u);
  EXPECT_EQ(summary.reasons[0], "cpu: 5 wrong results (5 injected by --inject-faults)");
  // A checker that misses an injected fault is broken: invalid, not fail.
  summary.cpu.wrong_results = 4;
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "invalid");
  EXPECT_EQ(summary.reasons[0], "cpu: the checker caught 4 of 5 injected faults: the check is broken");
  GpuStressSummary gpu;
  gpu.index = 0;
  gpu.injected_faults = 3;
  gpu.wrong_results = 3;
  gpu.injected_memory_faults = 3;
  gpu.memory_errors = 0;
  summary = StressSummary{};
  summary.gpus.push_back(gpu);
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "invalid");
  ASSERT_EQ(summary.reasons.size(), 2u);
  EXPECT_EQ(summary.reasons[0], "gpu0: the checker caught 0 of 3 injected memory faults: the check is broken");
  EXPECT_EQ(summary.reasons[1], "gpu0: 3 wrong GEMM results (3 injected by --inject-faults)");
}

TEST(StressJudge, InterruptedIsNeverAPass) {
  StressSummary summary = cpu_summary(50);
  summary.stopped_by = "interrupted";
  summary.duration_s = 2.5;
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "interrupted");
  EXPECT_EQ(summary.exit_code, 130);
  EXPECT_EQ(summary.reasons, (std::vector<std::string>{"interrupted by a signal after 2.5 s"}));
  // A failure found before the signal is still said; the exit code is still 130.
  summary = cpu_summary(50);
  summary.stopped_by = "interrupted";
  summary.cpu.wrong_results = 2;
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "fail");
  EXPECT_EQ(summary.exit_code, 130);
  EXPECT_EQ(stress_summary_json(summary)["exit_code"], 130);
}

TEST(StressJudge, JudgingTwiceGivesTheSameReasons) {
  StressSummary summary = cpu_summary(1000);
  judge_stress(summary);
  judge_stress(summary);
  EXPECT_EQ(summary.reasons.size(), 1u);
}

// Rates between completions, never over less than the minimum span: a last row 12 ms after the
// one before reports nothing, not a rate over 12 ms.
TEST(StressTelemetryRate, OnlyOverAtLeastTheMinimumSpan) {
  const std::int64_t ms = 1'000'000;
  RateAnchor anchor{0, 1000 * ms};
  EXPECT_FALSE(burn_rate_tflops(anchor, 0, 0, 500 * ms));  // nothing completed yet
  auto rate = burn_rate_tflops(anchor, 28e12, 2000 * ms, 500 * ms);
  ASSERT_TRUE(rate);
  EXPECT_DOUBLE_EQ(*rate, 28.0);
  EXPECT_EQ(anchor.completed_ns, 2000 * ms);
  // 12 ms later, a chunk's worth more: left out, and the anchor stays.
  EXPECT_FALSE(burn_rate_tflops(anchor, 28e12 + 0.64e12, 2012 * ms, 500 * ms));
  EXPECT_EQ(anchor.completed_ns, 2000 * ms);
  // The span grows until it is long enough: the rate then covers all of it.
  rate = burn_rate_tflops(anchor, 28e12 + 14e12, 2500 * ms, 500 * ms);
  ASSERT_TRUE(rate);
  EXPECT_DOUBLE_EQ(*rate, 28.0);
  // A batch longer than the interval: intervals with no completion have no rate; the next one
  // has the true rate, not the batch size over one interval.
  RateAnchor slow{0, 0};
  EXPECT_FALSE(burn_rate_tflops(slow, 0, 0, 500 * ms));
  rate = burn_rate_tflops(slow, 4.4e12, 3400 * ms, 500 * ms);
  ASSERT_TRUE(rate);
  EXPECT_NEAR(*rate, 4.4 / 3.4, 1e-12);
  EXPECT_FALSE(burn_rate_tflops(slow, 4.4e12, 3400 * ms, 500 * ms));  // no new completion
}

}  // namespace
}  // namespace pipecheck
