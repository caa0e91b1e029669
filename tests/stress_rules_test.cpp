// Host rules of the stress run: clock-event reason decoding, the result verification, the
// memory-test patterns, load profiles, the slow-GPU and busy-but-not-loaded rules, the verdict.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "stress/burn_verify.hpp"
#include "stress/load_profile.hpp"
#include "stress/stress_judge.hpp"
#include "stress/stress_summary.hpp"
#include "telemetry/throttle_reasons.hpp"
#include "stress/verify_rule.hpp"

namespace pipecheck {
namespace {

TEST(StressThrottleReasons, DecodesEverySetBit) {
  // SwPowerCap | HwSlowdown | HwThermalSlowdown, plus an unknown bit.
  const std::uint64_t mask = 0x4 | 0x8 | 0x40 | 0x400;
  EXPECT_EQ(decode_clock_event_reasons(mask),
            (std::vector<std::string>{"SwPowerCap", "HwSlowdown", "HwThermalSlowdown", "Unknown0x400"}));
  EXPECT_EQ(clock_event_reasons_text(mask), "SwPowerCap|HwSlowdown|HwThermalSlowdown|Unknown0x400");
  EXPECT_EQ(clock_event_reasons_text(0), "");
}

TEST(StressThrottleReasons, BitsAreTestedNotTheWholeMask) {
  // GpuIdle together with SwThermalSlowdown is still a thermal slowdown.
  EXPECT_EQ(failing_clock_event_bits(0x1 | 0x20), 0x20u);
  EXPECT_EQ(failing_clock_event_bits(0x4), 0u);  // power cap: what a burn should reach
  EXPECT_EQ(failing_clock_event_bits(0x4 | 0x80), 0x80u);
  EXPECT_EQ(failing_clock_event_bits(0x8 | 0x40 | 0x100), 0x48u);
}

TEST(StressThrottleReasons, ParsesItsOwnText) {
  for (std::uint64_t mask : {0x0ull, 0x1ull, 0x1ffull, 0x24ull, 0x8000ull | 0x2ull}) {
    EXPECT_EQ(parse_clock_event_reasons(clock_event_reasons_text(mask)), mask) << mask;
  }
  EXPECT_FALSE(parse_clock_event_reasons("SwPowerCap|Overheat"));
}

TEST(StressVerify, CatchesAnInjectedWrongElement) {
  std::vector<float> reference(4096);
  for (std::size_t i = 0; i < reference.size(); ++i) reference[i] = std::sin(0.01f * i) * 100.0f;
  std::vector<float> result = reference;
  EXPECT_EQ(count_wrong_results(result, reference, 1e-3), 0u);
  result[1234] *= 1.01f;  // one element off by 1%
  EXPECT_EQ(count_wrong_results(result, reference, 1e-3), 1u);
  result[7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(count_wrong_results(result, reference, 1e-3), 2u);
  result.pop_back();  // a missing element is wrong too
  EXPECT_EQ(count_wrong_results(result, reference, 1e-3), 3u);
}

// The compare's host replay names what it caught: the element (row, column of the column-major
// result), its value and the reference's.
TEST(StressVerify, OneWrongElementIsNamed) {
  const int n = 64;
  std::vector<float> reference(n * n);
  for (std::size_t i = 0; i < reference.size(); ++i) reference[i] = std::cos(0.003f * i) * 50.0f;
  std::vector<float> result = reference;
  EXPECT_EQ(check_results(result, reference, 1e-3).wrong, 0u);
  EXPECT_EQ(describe_wrong_results(check_results(result, reference, 1e-3), n, true), "");
  const std::size_t at = 17 * n + 3;  // row 3, column 17
  result[at] = reference[at] + 1.0f;
  const BurnCheck check = check_results(result, reference, 1e-3);
  EXPECT_EQ(check.wrong, 1u);
  EXPECT_EQ(check.first_index, at);
  const std::string text = describe_wrong_results(check, n, true);
  EXPECT_EQ(text.rfind("1 wrong, first at row 3, column 17: ", 0), 0u) << text;
  EXPECT_NE(text.find(", the reference's "), std::string::npos) << text;
  EXPECT_EQ(describe_wrong_results(check, n, false), "1 wrong, first at row 3, column 17");
}

TEST(StressVerify, MemtestNamesTheFirstFlippedWord) {
  std::vector<std::uint32_t> words(1000);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = memtest_word(2, 5000 + i);
  words[321] ^= 1u << 17;
  words[600] ^= 1u;
  const BurnCheck check = check_memtest(words, 2, 5000);
  EXPECT_EQ(check.wrong, 2u);
  EXPECT_EQ(check.first_index, 5321u);
  EXPECT_EQ(describe_memtest_errors(check, 2),
            "2 words wrong, first word 5321 (byte 21284) of the tested memory reads 0x55575555, pattern 2 "
            "wrote 0x55555555");
}

TEST(StressVerify, ToleranceIsRelativeAboveOne) {
  EXPECT_FALSE(burn_result_wrong(1000.5, 1000.0, 1e-3));
  EXPECT_TRUE(burn_result_wrong(1001.5, 1000.0, 1e-3));
  EXPECT_FALSE(burn_result_wrong(0.0005, 0.0, 1e-3));  // near zero: absolute
  EXPECT_TRUE(burn_result_wrong(0.0, std::numeric_limits<double>::quiet_NaN(), 1e-3));
  EXPECT_TRUE(burn_result_wrong(std::numeric_limits<double>::infinity(), 1.0, 1e-3));
}

TEST(StressVerify, DoubleResultsToo) {
  std::vector<double> reference{1.0, 2.0, 3.0};
  std::vector<double> result{1.0, 2.0 + 1e-9, 3.0};
  EXPECT_EQ(count_wrong_results(result, reference, 1e-12), 1u);
  EXPECT_EQ(count_wrong_results(result, reference, 1e-6), 0u);
}

TEST(StressVerify, MemtestCatchesAFlippedBit) {
  for (int pattern = 0; pattern < memtest_pattern_count; ++pattern) {
    std::vector<std::uint32_t> words(1000);
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = memtest_word(pattern, 5000 + i);
    EXPECT_EQ(count_memtest_errors(words, pattern, 5000), 0u) << pattern;
    words[321] ^= 1u << 17;
    EXPECT_EQ(count_memtest_errors(words, pattern, 5000), 1u) << pattern;
  }
  // The address pattern differs between neighbouring words (catches aliased addresses).
  EXPECT_NE(memtest_word(4, 0), memtest_word(4, 1));
}

TEST(StressVerify, ReferenceSpotCheckBound) {
  EXPECT_TRUE(reference_element_ok(10.0 + 1e-4, 10.0, 500.0, reference_tolerance("bf16")));
  EXPECT_FALSE(reference_element_ok(12.0, 10.0, 500.0, reference_tolerance("bf16")));
  EXPECT_FALSE(reference_element_ok(10.0 + 1e-6, 10.0, 500.0, reference_tolerance("fp64")));
}

TEST(StressLoadProfile, Shapes) {
  LoadProfile steady;
  EXPECT_TRUE(steady.active_at(0));
  EXPECT_TRUE(steady.active_at(1e6));

  LoadProfile pulse{LoadShape::pulse, 10};
  EXPECT_DOUBLE_EQ(pulse.level_at(2), 1.0);
  EXPECT_DOUBLE_EQ(pulse.level_at(7), 0.0);
  EXPECT_DOUBLE_EQ(pulse.level_at(12), 1.0);
  EXPECT_FALSE(pulse.active_at(9.9));

  LoadProfile ramp{LoadShape::ramp, 60};
  EXPECT_DOUBLE_EQ(ramp.level_at(10), 0.25);
  EXPECT_DOUBLE_EQ(ramp.level_at(130), 0.75);
  EXPECT_DOUBLE_EQ(ramp.level_at(1000), 1.0);
  // 25% as a duty cycle of a 1 s window.
  EXPECT_TRUE(ramp.active_at(10.1));
  EXPECT_FALSE(ramp.active_at(10.5));
  EXPECT_EQ(parse_load_shape("pulse"), LoadShape::pulse);
  EXPECT_FALSE(parse_load_shape("sawtooth"));
}

TEST(StressSummary, SlowGpuRuleAgainstTheMedian) {
  double median = 0;
  EXPECT_EQ(slow_gpus({700, 705, 698, 610}, 10, &median), (std::vector<std::size_t>{3}));
  EXPECT_DOUBLE_EQ(median, 699);
  EXPECT_TRUE(slow_gpus({700, 705, 698, 650}, 10).empty());  // 7% slower: within tolerance
  EXPECT_TRUE(slow_gpus({700}, 10).empty());                  // nothing to compare with
  EXPECT_EQ(slow_gpus({700, 500}, 10), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(slow_gpus({700, 700, 700, 700}, 0).empty());
}

TEST(StressSummary, BusyButNotLoaded) {
  EXPECT_TRUE(busy_but_not_loaded(99, 350, 700));   // GPU-Util 99% at half the power limit
  EXPECT_FALSE(busy_but_not_loaded(99, 690, 700));  // really loaded
  EXPECT_FALSE(busy_but_not_loaded(40, 200, 700));  // not busy either
  EXPECT_FALSE(busy_but_not_loaded(99, 350, 0));    // no limit known
}

TelemetryRow gpu_row(double t, double tflops, std::uint64_t mask, double power, double util) {
  TelemetryRow row;
  row.source = "gpu";
  row.gpu_index = 0;
  row.gpu_bus_id = "0000:17:00.0";
  row.elapsed_s = t;
  row.tflops = tflops;
  row.throttle_mask = mask;
  row.power_w = power;
  row.power_limit_w = 700;
  row.util_gpu_pct = util;
  row.temp_c = 60 + t;
  row.sm_clock_mhz = 1980;
  row.wrong_results = 0;
  return row;
}

TEST(StressSummary, ThrottledTimeByReasonAndVerdict) {
  SummaryRules rules;
  rules.warmup_s = 2;
  SourceAccumulator source;
  for (int t = 0; t < 10; ++t) {
    const std::uint64_t mask = t >= 6 ? (0x4 | 0x40) : 0x4;  // thermal slowdown for the last 4 s
    source.add(gpu_row(t, 700 + t, mask, 690, 100), 1.0, 1.0, rules);
  }
  StressSummary summary;
  summary.rules = rules;
  GpuStressSummary gpu;
  gpu.index = 0;
  source.finish_gpu(gpu, rules);
  EXPECT_DOUBLE_EQ(gpu.throttled_s["SwPowerCap"], 10);
  EXPECT_DOUBLE_EQ(gpu.throttled_s["HwThermalSlowdown"], 4);
  EXPECT_DOUBLE_EQ(gpu.failing_throttle_s, 4);
  EXPECT_EQ(gpu.loaded_samples, 8u);  // warm-up excluded
  EXPECT_DOUBLE_EQ(*gpu.sustained_tflops, 705.5);
  EXPECT_DOUBLE_EQ(*gpu.max_temp_c, 69);
  EXPECT_FALSE(gpu.busy_but_not_loaded);
  summary.gpus.push_back(gpu);
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "fail");
  EXPECT_EQ(summary.exit_code, 1);
  ASSERT_EQ(summary.reasons.size(), 1u);
  EXPECT_NE(summary.reasons[0].find("HwThermalSlowdown"), std::string::npos) << summary.reasons[0];
}

TEST(StressSummary, PowerCapAloneAndLowPowerDoNotFailButWarn) {
  SummaryRules rules;
  rules.warmup_s = 0;
  SourceAccumulator source;
  for (int t = 0; t < 5; ++t) source.add(gpu_row(t, 300, 0x4, 300, 99), 1.0, 1.0, rules);
  StressSummary summary;
  summary.rules = rules;
  GpuStressSummary gpu;
  source.finish_gpu(gpu, rules);
  EXPECT_TRUE(gpu.busy_but_not_loaded);
  summary.gpus.push_back(gpu);
  judge_stress(summary);
  EXPECT_EQ(summary.verdict, "pass");
  ASSERT_EQ(summary.warnings.size(), 1u);
  EXPECT_NE(summary.warnings[0].find("busy but not loaded"), std::string::npos);
}

TEST(StressSummary, EachFailureNamesItsGpu) {
  StressSummary summary;
  for (int i = 0; i < 4; ++i) {
    GpuStressSummary gpu;
    gpu.index = i;
    gpu.sustained_tflops = i == 2 ? 500 : 700;
    summary.gpus.push_back(gpu);
  }
  summary.gpus[0].wrong_results = 3;
  summary.gpus[1].xids.push_back(XidEvent{"0000:18:00.0", 79, "kmsg", "", 12});
  summary.gpus[3].hang = HangSummary{"GEMM batch 12", 60, 80, std::nullopt};
  judge_stress(summary);
  EXPECT_EQ(summary.slow_gpu_indices, (std::vector<int>{2}));
  ASSERT_EQ(summary.reasons.size(), 4u);
  EXPECT_EQ(summary.reasons[0], "gpu0: 3 wrong GEMM results");
  EXPECT_EQ(summary.reasons[1], "gpu1: Xid 79 (kmsg)");
  EXPECT_NE(summary.reasons[2].find("gpu2: slow"), std::string::npos);
  EXPECT_NE(summary.reasons[3].find("gpu3: hang: GEMM batch 12"), std::string::npos);
  const auto json = stress_summary_json(summary);
  EXPECT_EQ(json["schema"], "pipecheck.stress_summary");
  EXPECT_EQ(json["gpus"][3]["hang"]["what"], "GEMM batch 12");
  EXPECT_EQ(json["exit_code"], 1);
}

}  // namespace
}  // namespace pipecheck
