// When noise could have produced a verdict: failures under busy conditions and spreads that
// straddle a threshold are inconclusive with the reason, never fail; a pass stays a pass.
#include "judge/inconclusive.hpp"

#include <gtest/gtest.h>

#include "judge/judge.hpp"

namespace pipecheck {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A 2-thread decode figure at `percent` % of linear scaling, spread over [low, high] %.
Measurement scaling(double percent, double low, double high) {
  Measurement m;
  m.key = "decode/dct_1_2/threads:2";
  m.stage = "decode";
  m.what = "DCT-scaled decode 1/2, 2 threads";
  m.unit = "images/s";
  m.params = {{"threads", "2"}, {"op", "dct_1_2"}};
  m.stats = {percent * 2, low * 2, high * 2, 5};
  m.ceiling = CeilingResult::known({200, "images/s", "linear scaling", "2 x 100"});
  m.percent_of_ceiling = percent;
  m.percent_low = low;
  m.percent_high = high;
  m.median_interval = MedianInterval{low * 2, high * 2, 0.9375};
  return m;
}

ProbeOutcome probe_with(Measurement m, double other_cpu, std::vector<GpuProcess> gpu = {}) {
  ProbeOutcome probe{"pipecheck-decode", m.stage, ProbeStatus::ok, "", 10, {std::move(m)}, {}};
  RunConditions c;
  c.seconds = 10;
  c.other_cpu_percent = other_cpu;
  c.loadavg_1m = 3.43;
  c.top_consumers = {{812, "stress-ng", 98.0}};
  c.gpu_processes = std::move(gpu);
  probe.conditions = c;
  return probe;
}

Judgement judge_one(const ProbeOutcome& probe, const Profile& profile = default_profile()) {
  Report report;
  report.probes.push_back(probe);
  Inventory inventory;
  inventory.cpu.physical_cores = 2;
  const auto judgements = judge_measurements(report, inventory, profile);
  EXPECT_EQ(judgements.size(), 1u);
  return judgements.empty() ? Judgement{} : judgements[0];
}

TEST(Inconclusive, FailureUnderLoadIsInconclusiveNamingTheLoad) {
  const Judgement j = judge_one(probe_with(scaling(45, 44, 47), 187));
  EXPECT_EQ(j.verdict, Verdict::inconclusive);
  EXPECT_TRUE(contains(j.explanation, "other processes used 187% of one core")) << j.explanation;
  EXPECT_TRUE(contains(j.explanation, "stress-ng (pid 812)")) << j.explanation;
  EXPECT_TRUE(contains(j.explanation, "load average 3.43")) << j.explanation;
  EXPECT_TRUE(contains(j.explanation, "below the 60% minimum")) << "the measurement is still said: " << j.explanation;
  EXPECT_TRUE(contains(j.rule, "conditions.other_cpu_max_percent = 20")) << j.rule;
}

TEST(Inconclusive, QuietFailureStaysAFailureAndBusyPassAPass) {
  EXPECT_EQ(judge_one(probe_with(scaling(45, 44, 47), 19.9)).verdict, Verdict::fail);
  EXPECT_EQ(judge_one(probe_with(scaling(90, 88, 92), 187)).verdict, Verdict::pass);
  ProbeOutcome old = probe_with(scaling(45, 44, 47), 187);
  old.conditions.reset();  // a report from before conditions were measured
  EXPECT_EQ(judge_one(old).verdict, Verdict::fail);
}

TEST(Inconclusive, ProfileSetsTheLimitOrDropsIt) {
  const Profile loose = parse_profile("conditions.other_cpu_max_percent = 200\n", "loose.txt", default_profile());
  EXPECT_EQ(judge_one(probe_with(scaling(45, 44, 47), 187), loose).verdict, Verdict::fail);
  const Profile off = parse_profile("conditions.other_cpu_max_percent = off\n", "off.txt", default_profile());
  EXPECT_EQ(judge_one(probe_with(scaling(45, 44, 47), 187), off).verdict, Verdict::fail);
}

TEST(Inconclusive, AStraddlingSpreadUnderLoadNamesTheLoadFirst) {
  const Judgement j = judge_one(probe_with(scaling(58, 40, 90), 187));
  EXPECT_EQ(j.verdict, Verdict::inconclusive);
  EXPECT_EQ(j.explanation.rfind("measured while the machine was busy: other processes used 187% of one core", 0), 0u)
      << j.explanation;
  EXPECT_TRUE(contains(j.explanation, "straddles the 60.0% minimum")) << j.explanation;
}

TEST(Inconclusive, StealBeyondItsLimit) {
  ProbeOutcome probe = probe_with(scaling(45, 44, 47), 0);
  probe.conditions->steal_percent = 25;
  const Judgement j = judge_one(probe);
  EXPECT_EQ(j.verdict, Verdict::inconclusive);
  EXPECT_TRUE(contains(j.explanation, "hypervisor stole 25.0%")) << j.explanation;
}

TEST(Inconclusive, SpreadStraddlingTheThresholdEitherSide) {
  for (double median : {58.0, 62.0}) {  // the median below and above the 60% minimum
    const Judgement j = judge_one(probe_with(scaling(median, 55, 66), 0));
    EXPECT_EQ(j.verdict, Verdict::inconclusive) << median;
    EXPECT_TRUE(contains(j.explanation, "55.0% - 66.0%")) << j.explanation;
    EXPECT_TRUE(contains(j.explanation, "straddles the 60.0% minimum")) << j.explanation;
  }
  EXPECT_EQ(judge_one(probe_with(scaling(58, 55, 59.9), 0)).verdict, Verdict::fail);  // all of it below
  EXPECT_EQ(judge_one(probe_with(scaling(70, 61, 75), 0)).verdict, Verdict::pass);
}

TEST(Inconclusive, AnotherProcessOnTheGpuOnlyMattersToGpuFigures) {
  Measurement gemm;
  gemm.key = "compute/gemm/bf16/gpu0";
  gemm.stage = "compute";
  gemm.unit = "TFLOP/s";
  gemm.params = {{"dtype", "bf16"}, {"gpu", "0"}};
  gemm.stats = {500, 500, 500, 5};
  gemm.ceiling = CeilingResult::known({989, "TFLOP/s", "vendor spec", "x"});
  gemm.percent_of_ceiling = 50.6;
  std::string rule;
  const ProbeOutcome held = probe_with(gemm, 0, {{4411, "python3", "0000:17:00.0", 1 << 30}});
  const Judgement j = judge_one(held);
  EXPECT_EQ(j.verdict, Verdict::inconclusive);
  EXPECT_TRUE(contains(j.explanation, "python3 (pid 4411) on 0000:17:00.0")) << j.explanation;
  EXPECT_FALSE(busy_reason(probe_with(scaling(45, 44, 47), 0, {{4411, "python3", "0000:17:00.0", 0}}),
                           scaling(45, 44, 47), default_profile(), rule))
      << "CPU decode is not slowed by a GPU user";
}

TEST(Inconclusive, AFailedProbeStaysFailed) {
  Judgement crashed{"probe/decode", "decode", "pipecheck-decode", Verdict::fail, "", "crashed", true};
  const ProbeOutcome probe = probe_with(scaling(45, 44, 47), 187);
  EXPECT_EQ(judge_under_conditions(crashed, probe, probe.measurements[0], default_profile()).verdict, Verdict::fail);
}

TEST(Inconclusive, StraddleTextAndBounds) {
  EXPECT_FALSE(spread_straddles(std::nullopt, 70.0, 60, "%", 0.9));
  EXPECT_FALSE(spread_straddles(60.0, 70.0, 60, "%", 0.9)) << "at the minimum is not below it";
  EXPECT_TRUE(spread_straddles(59.0, 60.0, 60, "%", 0.9));
  EXPECT_EQ(*spread_straddles(150.0, 250.0, 200, "IOPS", 0.9375),
            "the spread 150 IOPS - 250 IOPS (94% interval of the median) straddles the 200 IOPS minimum: noise "
            "could make it pass or fail");
}

}  // namespace
}  // namespace pipecheck
