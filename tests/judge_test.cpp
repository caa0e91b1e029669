// The judge: verdicts at the threshold boundaries, the stage rules that pick the profile key,
// probe outcomes, inventory facts, and a whole recorded report judged end to end.
#include "judge/judge.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/measurement_records.hpp"

namespace pipecheck {
namespace {

using testing::contains;

// A measurement already held against a ceiling of `ceiling` in its own unit.
Measurement judged_against(const std::string& key, const std::string& stage, double median, double ceiling,
                           std::map<std::string, std::string> params, const std::string& unit = "GB/s") {
  Measurement m = testing::measure(key, stage, median, unit, std::move(params));
  if (ceiling > 0) {
    m.ceiling = CeilingResult::known({ceiling, unit, "vendor spec", "test ceiling"});
    m.percent_of_ceiling = 100 * median / ceiling;
  } else {
    m.ceiling = CeilingResult::unknown("no ceiling: virtual disk");
  }
  return m;
}

Report report_of(std::vector<Measurement> ms, const std::string& stage = "compute") {
  Report report;
  report.probes.push_back({"pipecheck-" + stage, stage, ProbeStatus::ok, "", 1, std::move(ms), {}});
  return report;
}

Measurement bf16(double median) {
  return judged_against("compute/gemm/bf16/gpu0", "compute", median, 1000, {{"dtype", "bf16"}, {"gpu", "0"}}, "TFLOP/s");
}

Judgement only(const Report& report, const Inventory& inventory = {}, const Profile& profile = default_profile()) {
  const auto judgements = judge_measurements(report, inventory, profile);
  EXPECT_EQ(judgements.size(), 1u);
  return judgements.empty() ? Judgement{} : judgements[0];
}

TEST(VerdictForPercent, Boundaries) {
  EXPECT_EQ(verdict_for_percent(70.0, 70, 5), Verdict::warn);   // exactly at the threshold
  EXPECT_EQ(verdict_for_percent(69.99, 70, 5), Verdict::fail);  // just below
  EXPECT_EQ(verdict_for_percent(74.99, 70, 5), Verdict::warn);  // within the margin
  EXPECT_EQ(verdict_for_percent(75.0, 70, 5), Verdict::pass);   // at threshold + margin
  EXPECT_EQ(verdict_for_percent(70.0, 70, 0), Verdict::pass);   // no margin: at threshold passes
}

TEST(VerdictOrder, WorseAndNames) {
  EXPECT_EQ(worse(Verdict::pass, Verdict::fail), Verdict::fail);
  EXPECT_EQ(worse(Verdict::warn, Verdict::pass), Verdict::warn);
  EXPECT_EQ(worse(Verdict::info, Verdict::pass), Verdict::pass);
  EXPECT_EQ(worse(Verdict::skipped, Verdict::info), Verdict::info);
  for (Verdict v : {Verdict::pass, Verdict::warn, Verdict::fail, Verdict::info, Verdict::skipped}) {
    EXPECT_EQ(parse_verdict(to_string(v)), v);
  }
  EXPECT_FALSE(parse_verdict("passed").has_value());
}

TEST(JudgeMeasurement, Bf16AtItsBoundaries) {
  EXPECT_EQ(only(report_of({bf16(700)})).verdict, Verdict::warn);
  EXPECT_EQ(only(report_of({bf16(699.9)})).verdict, Verdict::fail);
  EXPECT_EQ(only(report_of({bf16(749)})).verdict, Verdict::warn);
  EXPECT_EQ(only(report_of({bf16(750)})).verdict, Verdict::pass);
}

TEST(JudgeMeasurement, NamesTheRuleAndExplainsWithFigures) {
  const Judgement j = only(report_of({bf16(650)}));
  EXPECT_EQ(j.subject, "compute/gemm/bf16/gpu0");
  EXPECT_EQ(j.rule, "compute.bf16_min_percent = 70");
  EXPECT_EQ(j.explanation, "650 TFLOP/s is 65.0% of 1000 TFLOP/s (vendor spec): below the 70% minimum");
}

TEST(JudgeMeasurement, OffThresholdIsInfo) {
  const Profile profile = parse_profile("compute.bf16_min_percent = off\n", "p", default_profile());
  const Judgement j = only(report_of({bf16(100)}), {}, profile);
  EXPECT_EQ(j.verdict, Verdict::info);
  EXPECT_TRUE(contains(j.explanation, "compute.bf16_min_percent is off")) << j.explanation;
}

TEST(JudgeMeasurement, UnknownCeilingIsInfoWithItsReason) {
  const Measurement m = judged_against("compute/gemm/bf16/gpu0", "compute", 500, 0, {{"dtype", "bf16"}}, "TFLOP/s");
  const Judgement j = only(report_of({m}));
  EXPECT_EQ(j.verdict, Verdict::info);
  EXPECT_TRUE(contains(j.explanation, "no ceiling: virtual disk")) << j.explanation;
}

TEST(JudgeMeasurement, PageableCopiesAreNotJudgedPinnedAre) {
  const auto pinned = judged_against("pcie/h2d/pinned/gpu0", "pcie", 40, 63, {{"direction", "h2d"}, {"host_memory", "pinned"}});
  const auto pageable = judged_against("pcie/h2d/pageable/gpu0", "pcie", 9, 63, {{"direction", "h2d"}, {"host_memory", "pageable"}});
  const auto judgements = judge_measurements(report_of({pinned, pageable}, "pcie"), {}, default_profile());
  ASSERT_EQ(judgements.size(), 2u);
  EXPECT_EQ(judgements[0].verdict, Verdict::fail);  // 63.5% < 80%
  EXPECT_EQ(judgements[0].rule, "pcie.pinned_h2d_min_percent = 80");
  EXPECT_EQ(judgements[1].verdict, Verdict::info);
}

TEST(JudgeMeasurement, HostMemoryJudgedAtTheMostThreadsOnly) {
  const auto one = judged_against("hostmem/read/threads:1", "hostmem", 10, 100, {{"op", "read"}, {"threads", "1"}});
  const auto all = judged_against("hostmem/read/threads:32", "hostmem", 70, 100, {{"op", "read"}, {"threads", "32"}});
  const auto judgements = judge_measurements(report_of({one, all}, "hostmem"), {}, default_profile());
  ASSERT_EQ(judgements.size(), 2u);
  EXPECT_EQ(judgements[0].verdict, Verdict::info);
  EXPECT_EQ(judgements[1].verdict, Verdict::pass);  // 70% >= 60 + 5
}

TEST(JudgeMeasurement, CommSweepJudgedAtItsLargestSizeOnly) {
  auto at = [](const std::string& bytes, double busbw, const std::string& dtype) {
    return judged_against("comm/all_reduce/" + dtype + "/ranks:8/bytes:" + bytes, "comm", busbw, 450,
                          {{"collective", "all_reduce"}, {"dtype", dtype}, {"ranks", "8"}, {"nodes", "1"}, {"bytes", bytes}});
  };
  // 8 B is latency-bound (far below 60%), 8 GiB is the figure that counts; bf16 is its own series.
  const auto judgements = judge_measurements(
      report_of({at("8", 0.01, "float"), at("8589934592", 360, "float"), at("1048576", 20, "bf16")}, "comm"), {},
      default_profile());
  ASSERT_EQ(judgements.size(), 3u);
  EXPECT_EQ(judgements[0].verdict, Verdict::info);
  EXPECT_TRUE(contains(judgements[0].explanation, "judged at the largest size (8589934592 bytes)")) << judgements[0].explanation;
  EXPECT_EQ(judgements[1].verdict, Verdict::pass);  // 80% >= 60 + 5
  EXPECT_EQ(judgements[2].verdict, Verdict::fail);  // the largest bf16 size, 4.4%
}

TEST(JudgeMeasurement, OneRankCommIsNotJudged) {
  // pipecheck-comm -g 1: the figure is algbw, with no link between GPUs to hold it against.
  const auto one = judged_against("comm/all_reduce/float/ranks:1/bytes:1073741824", "comm", 1500, 450,
                                  {{"collective", "all_reduce"}, {"dtype", "float"}, {"ranks", "1"}, {"nodes", "1"},
                                   {"bytes", "1073741824"}, {"figure", "algbw"}});
  const auto judgements = judge_measurements(report_of({one}, "comm"), {}, default_profile());
  ASSERT_EQ(judgements.size(), 1u);
  EXPECT_EQ(judgements[0].verdict, Verdict::info);
  EXPECT_TRUE(contains(judgements[0].explanation, "one rank")) << judgements[0].explanation;
}

TEST(JudgeMeasurement, DecodeScalingOnlyUpToPhysicalCores) {
  Inventory inventory;
  inventory.cpu.physical_cores = 4;
  const auto four = judged_against("decode/full/threads:4", "decode", 200, 400, {{"threads", "4"}}, "images/s");
  const auto eight = judged_against("decode/full/threads:8", "decode", 250, 800, {{"threads", "8"}}, "images/s");
  const auto judgements = judge_measurements(report_of({four, eight}, "decode"), inventory, default_profile());
  ASSERT_EQ(judgements.size(), 2u);
  EXPECT_EQ(judgements[0].verdict, Verdict::fail);  // 50% < 60%
  EXPECT_EQ(judgements[1].verdict, Verdict::info);
  EXPECT_TRUE(contains(judgements[1].explanation, "physical cores")) << judgements[1].explanation;
}

TEST(JudgeMeasurement, StorageAbsoluteMinimums) {
  const Profile profile = parse_profile("storage.rand_read_min_iops = 1000\n", "p", default_profile());
  // 4 KiB reads at 0.002 GB/s = 488 IOPS.
  const auto rand = judged_against("storage/rand_read/data", "storage", 0.002, 0,
                                   {{"pattern", "rand_read"}, {"bs", "4096"}, {"device", "sda"}});
  const Judgement j = only(report_of({rand}, "storage"), {}, profile);
  EXPECT_EQ(j.verdict, Verdict::fail);
  EXPECT_TRUE(contains(j.explanation, "488 IOPS is below the minimum 1000 IOPS")) << j.explanation;
  EXPECT_EQ(only(report_of({rand}, "storage")).verdict, Verdict::info);  // default: off
}

TEST(JudgeMeasurement, WrongResultsFailAndZeroPasses) {
  const auto bad = judged_against("stress/burn/gpu0", "stress", 600, 0, {{"wrong_results", "3"}}, "TFLOP/s");
  const auto good = judged_against("stress/burn/gpu1", "stress", 600, 0, {{"wrong_results", "0"}}, "TFLOP/s");
  const auto judgements = judge_measurements(report_of({bad, good}, "stress"), {}, default_profile());
  ASSERT_EQ(judgements.size(), 2u);
  EXPECT_EQ(judgements[0].verdict, Verdict::fail);
  EXPECT_EQ(judgements[0].rule, "stress.wrong_results_max = 0");
  EXPECT_EQ(judgements[1].verdict, Verdict::pass);
}

TEST(JudgeMeasurement, FailedVerificationFailsAFastFigure) {
  Measurement m = judged_against("hostmem/memcpy/threads:8", "hostmem", 90, 100, {{"op", "memcpy"}, {"threads", "8"}, {"verified", "no"}});
  const Judgement j = only(report_of({m}, "hostmem"));
  EXPECT_EQ(j.verdict, Verdict::fail);
  EXPECT_EQ(j.rule, "probe.unverified = fail");
  EXPECT_TRUE(contains(j.explanation, "90.0% of 100 GB/s")) << j.explanation;  // the passing check is said too
}

TEST(JudgeProbes, SkippedFailedAndCaseErrors) {
  Report report;
  report.probes.push_back({"pipecheck-compute", "compute", ProbeStatus::skipped, "skipped: no CUDA device", 0, {}, {}});
  report.probes.push_back({"pipecheck-decode", "decode", ProbeStatus::failed, "killed by signal 11 (Segmentation fault)", 2, {}, {}});
  report.probes.push_back({"pipecheck-comm", "comm", ProbeStatus::not_built, "not built: no NCCL", 0, {}, {}});
  report.probes.push_back({"pipecheck-storage", "storage", ProbeStatus::ok, "", 1, {}, {"storage/seq_read/x: O_DIRECT refused"}});
  const auto judgements = judge_measurements(report, {}, default_profile());
  ASSERT_EQ(judgements.size(), 4u);
  EXPECT_EQ(judgements[0].verdict, Verdict::skipped);
  EXPECT_EQ(judgements[0].explanation, "skipped: no CUDA device");
  EXPECT_EQ(judgements[1].verdict, Verdict::fail);
  EXPECT_EQ(judgements[1].subject, "probe/decode");
  EXPECT_TRUE(contains(judgements[1].explanation, "Segmentation fault"));
  EXPECT_EQ(judgements[2].verdict, Verdict::skipped);
  EXPECT_EQ(judgements[3].verdict, Verdict::warn);
  EXPECT_EQ(judgements[3].rule, "probe.case_error = warn");
  const Judged judged = judge(report, {}, default_profile(), std::nullopt);
  EXPECT_EQ(judged.overall, Verdict::fail);
  EXPECT_EQ(exit_code_of(judged), 1);
}

// A skipped case is said as skipped under its own key; a case whose verifier caught wrong data
// fails by probe.unverified and says what it caught.
TEST(JudgeProbes, SkippedCasesAndWrongResults) {
  Report report;
  ProbeOutcome probe{"pipecheck-decode", "decode", ProbeStatus::ok, "", 1, {}, {}};
  probe.skipped_cases = {"decode/nvjpeg: no nvJPEG (libnvjpeg.so.13: not found)"};
  report.probes.push_back(probe);
  Judged judged = judge(report, {}, default_profile(), std::nullopt);
  ASSERT_EQ(judged.judgements.size(), 1u);
  EXPECT_EQ(judged.judgements[0].subject, "decode/nvjpeg");
  EXPECT_EQ(judged.judgements[0].verdict, Verdict::skipped);
  EXPECT_EQ(judged.judgements[0].explanation, "skipped: no nvJPEG (libnvjpeg.so.13: not found)");
  EXPECT_EQ(exit_code_of(judged), 0);

  report.probes[0].wrong_results = {"decode/full/threads:1: pixel (3, 4) channel G is 17, reference 200"};
  judged = judge(report, {}, default_profile(), std::nullopt);
  ASSERT_EQ(judged.judgements.size(), 2u);
  EXPECT_EQ(judged.judgements[1].subject, "decode/full/threads:1");
  EXPECT_EQ(judged.judgements[1].verdict, Verdict::fail);
  EXPECT_EQ(judged.judgements[1].rule, "probe.unverified = fail");
  EXPECT_TRUE(contains(judged.judgements[1].explanation, "pixel (3, 4) channel G")) << judged.judgements[1].explanation;
  EXPECT_EQ(exit_code_of(judged), 1);
}

GpuInfo gpu_with_link(double gts, int width, double max_gts, int max_width) {
  GpuInfo gpu;
  gpu.cuda_index = 0;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.pci_bdf = "0000:17:00.0";
  gpu.cc_major = 9;
  gpu.sm_count = 132;
  gpu.max_sm_clock_mhz = 1980;
  gpu.pcie = {gts, width, max_gts, max_width};
  return gpu;
}

Judgement link_judgement(const Report& report, const GpuInfo& gpu, const Profile& profile = default_profile()) {
  Inventory inventory;
  inventory.gpus.push_back(gpu);
  const auto judgements = judge_inventory(report, inventory, profile);
  EXPECT_EQ(judgements.size(), 1u);
  return judgements.empty() ? Judgement{} : judgements[0];
}

TEST(JudgeInventory, GpuLinkAtMaxPasses) {
  const Judgement j = link_judgement({}, gpu_with_link(32, 16, 32, 16));
  EXPECT_EQ(j.subject, "inventory/gpu0/pcie_link");
  EXPECT_EQ(j.verdict, Verdict::pass);
}

TEST(JudgeInventory, NarrowerLinkFollowsThePolicy) {
  EXPECT_EQ(link_judgement({}, gpu_with_link(32, 8, 32, 16)).verdict, Verdict::fail);
  const Profile lenient = parse_profile("pcie.link_downtrained = info\n", "p", default_profile());
  EXPECT_EQ(link_judgement({}, gpu_with_link(32, 8, 32, 16), lenient).verdict, Verdict::info);
}

TEST(JudgeInventory, SlowerLinkAtIdleIsConfirmedUnderLoad) {
  const GpuInfo idle = gpu_with_link(2.5, 16, 32, 16);
  // No pcie measurement: read at idle, so at most warn.
  EXPECT_EQ(link_judgement({}, idle).verdict, Verdict::warn);
  // A pinned copy far above the idle link's 4 GB/s: it trains up under load.
  Measurement fast = judged_against("pcie/h2d/pinned/gpu0", "pcie", 52, 63,
                                    {{"direction", "h2d"}, {"host_memory", "pinned"}, {"gpu_bdf", "0000:17:00.0"}});
  const Judgement up = link_judgement(report_of({fast}, "pcie"), idle);
  EXPECT_EQ(up.verdict, Verdict::info);
  EXPECT_TRUE(contains(up.explanation, "trains up under load")) << up.explanation;
  // A copy that stays within the slow link: it is downtrained.
  Measurement slow = fast;
  slow.stats.median = 3.5;
  EXPECT_EQ(link_judgement(report_of({slow}, "pcie"), idle).verdict, Verdict::fail);
}

TEST(JudgeInventory, CudaDriverOlderThanRuntimeFails) {
  Inventory inventory;
  inventory.software.driver_cuda_version = 12040;
  inventory.software.runtime_cuda_version = 13000;
  auto judgements = judge_inventory({}, inventory, default_profile());
  ASSERT_EQ(judgements.size(), 1u);
  EXPECT_EQ(judgements[0].verdict, Verdict::fail);
  EXPECT_EQ(judgements[0].rule, "gpu.cuda_mismatch = fail");
  inventory.software.driver_cuda_version = 13000;
  judgements = judge_inventory({}, inventory, default_profile());
  ASSERT_EQ(judgements.size(), 1u);
  EXPECT_EQ(judgements[0].verdict, Verdict::pass);
  EXPECT_TRUE(contains(judgements[0].explanation, "13.0")) << judgements[0].explanation;
}

// A recorded GPU-machine report, ceilings attached from the inventory as a run does.
TEST(JudgeReport, RecordedGpuRunEndToEnd) {
  Inventory inventory;
  inventory.gpus.push_back(gpu_with_link(32, 16, 32, 16));
  inventory.cpu.physical_cores = 8;
  Report report;
  Measurement gemm;
  gemm.key = "compute/gemm/bf16/gpu0";
  gemm.stage = "compute";
  gemm.unit = "TFLOP/s";
  gemm.stats = {794.5, 780, 800, 5};
  gemm.params = {{"dtype", "bf16"}, {"gpu", "0"}, {"gpu_bdf", "0000:17:00.0"}};
  Measurement h2d;
  h2d.key = "pcie/h2d/pinned/gpu0";
  h2d.stage = "pcie";
  h2d.unit = "GB/s";
  h2d.stats = {45, 44, 46, 5};
  h2d.params = {{"direction", "h2d"}, {"host_memory", "pinned"}, {"numa", "local"}, {"gpu_bdf", "17:00.0"}};
  report.probes.push_back({"pipecheck-compute", "compute", ProbeStatus::ok, "", 3, {gemm}, {}});
  report.probes.push_back({"pipecheck-pcie", "pcie", ProbeStatus::ok, "", 3, {h2d}, {}});
  attach_ceilings(report, inventory);
  ASSERT_TRUE(report.probes[0].measurements[0].ceiling.ceiling.has_value())
      << report.probes[0].measurements[0].ceiling.unknown_reason;
  EXPECT_NEAR(report.probes[0].measurements[0].ceiling.ceiling->value, 989.4, 0.01);  // vendor spec preferred
  ASSERT_TRUE(report.probes[1].measurements[0].ceiling.ceiling.has_value());
  EXPECT_NEAR(report.probes[1].measurements[0].ceiling.ceiling->value, 63.0, 0.05);  // Gen5 x16 per direction

  const Judged judged = judge(report, inventory, default_profile(), std::nullopt);
  const auto find = [&](const std::string& subject) {
    return *std::find_if(judged.judgements.begin(), judged.judgements.end(),
                         [&](const Judgement& j) { return j.subject == subject; });
  };
  EXPECT_EQ(find("compute/gemm/bf16/gpu0").verdict, Verdict::pass);  // 80.3% >= 75
  EXPECT_EQ(find("pcie/h2d/pinned/gpu0").verdict, Verdict::fail);    // 71.4% < 80
  EXPECT_EQ(find("inventory/gpu0/pcie_link").verdict, Verdict::pass);
  EXPECT_EQ(judged.overall, Verdict::fail);
  EXPECT_FALSE(judged.budget.has_value());
}

// ---- above the physical ceiling: invalid -------------------------------------------------

// An H100 (vendor BF16 989.4 TFLOP/s at 1830 MHz; 132 SMs x 1980 MHz x 4096 = 1070.5 theoretical).
Report gemm_report(double tflops) {
  Measurement gemm;
  gemm.key = "compute/gemm/bf16/gpu0";
  gemm.stage = "compute";
  gemm.what = "GEMM bf16, GPU 0";
  gemm.unit = "TFLOP/s";
  gemm.stats = {tflops, tflops, tflops, 5};
  gemm.params = {{"dtype", "bf16"}, {"gpu", "0"}, {"gpu_bdf", "0000:17:00.0"}};
  Report report;
  report.probes.push_back({"pipecheck-compute", "compute", ProbeStatus::ok, "", 3, {gemm}, {}});
  return report;
}

Inventory h100_inventory() {
  Inventory inventory;
  inventory.gpus.push_back(gpu_with_link(32, 16, 32, 16));
  return inventory;
}

TEST(JudgeInvalid, AboveThePhysicalCeilingIsInvalidWithAFindingAndExitOne) {
  const Inventory inventory = h100_inventory();
  Report report = gemm_report(1200);  // 112% of 1070.5: no H100 multiplies that fast
  attach_ceilings(report, inventory);
  const Judged judged = judge(report, inventory, default_profile(), std::nullopt);
  const auto gemm = std::find_if(judged.judgements.begin(), judged.judgements.end(),
                                 [](const Judgement& j) { return j.subject == "compute/gemm/bf16/gpu0"; });
  ASSERT_NE(gemm, judged.judgements.end());
  EXPECT_EQ(gemm->verdict, Verdict::invalid);
  EXPECT_EQ(gemm->rule, "physical ceiling: above 105% is invalid");
  EXPECT_TRUE(contains(gemm->explanation, "measured 1200 TFLOP/s, above the physical ceiling 1071 TFLOP/s: the probe "
                                          "measured something else, or the ceiling is wrong"))
      << gemm->explanation;
  EXPECT_EQ(judged.overall, Verdict::invalid);
  EXPECT_EQ(exit_code_of(judged), 1);
  const auto finding = std::find_if(judged.findings.begin(), judged.findings.end(),
                                    [](const Finding& f) { return f.severity == Verdict::invalid; });
  ASSERT_NE(finding, judged.findings.end());
  EXPECT_EQ(finding->evidence, (std::vector<std::string>{"compute/gemm/bf16/gpu0"}));
  EXPECT_TRUE(contains(finding->text, "above the physical ceiling")) << finding->text;
}

TEST(JudgeInvalid, At104PercentItIsJudgedByItsThreshold) {
  const Inventory inventory = h100_inventory();
  Report report = gemm_report(1070.5 * 1.04);  // above the vendor figure, within the hardware
  attach_ceilings(report, inventory);
  const Judged judged = judge(report, inventory, default_profile(), std::nullopt);
  for (const auto& j : judged.judgements) EXPECT_NE(j.verdict, Verdict::invalid) << j.subject << ": " << j.explanation;
  EXPECT_EQ(judged.judgements[0].verdict, Verdict::pass);
  for (const auto& f : judged.findings) EXPECT_NE(f.severity, Verdict::invalid) << f.text;
  EXPECT_EQ(exit_code_of(judged), 0);
}

// Decode is held against linear scaling, a reference that 2-thread runs pass through noise.
TEST(JudgeInvalid, DecodeAboveLinearScalingIsNotInvalid) {
  Inventory inventory;
  inventory.cpu.physical_cores = 2;
  Measurement one = judged_against("decode/full/threads:1", "decode", 100, 0, {{"threads", "1"}, {"op", "full"}}, "images/s");
  Measurement two = judged_against("decode/full/threads:2", "decode", 222, 0, {{"threads", "2"}, {"op", "full"}}, "images/s");
  Report report = report_of({one, two}, "decode");
  attach_ceilings(report, inventory);
  ASSERT_NEAR(*report.probes[0].measurements[1].percent_of_ceiling, 111, 1e-9);
  const Judged judged = judge(report, inventory, default_profile(), std::nullopt);
  EXPECT_EQ(judged.judgements[1].verdict, Verdict::pass) << judged.judgements[1].explanation;
  EXPECT_TRUE(contains(judged.judgements[1].explanation, "above linear scaling, which noise")) << judged.judgements[1].explanation;
  EXPECT_NE(judged.overall, Verdict::invalid);
}

// The hand-over and the job's own loader run in one process: they are not the 1-thread reference
// of a scaling verdict, and the report says what they are.
TEST(JudgeDecode, TheLoadersOneProcessCostsAreNotCalledAScalingReference) {
  Inventory inventory;
  inventory.cpu.physical_cores = 2;
  Measurement handover = testing::measure("decode/handover/real_time", "decode", 1400, "images/s",
                                          {{"threads", "1"}, {"op", "handover"}});
  Measurement job = testing::measure("decode/interpreter/manual_time", "decode", 210, "images/s",
                                     {{"threads", "1"}, {"op", "interpreter"}});
  Measurement full = testing::measure("decode/full/threads:1", "decode", 400, "images/s", {{"threads", "1"}, {"op", "full"}});
  Report report = report_of({handover, job, full}, "decode");
  attach_ceilings(report, inventory);
  const Judged judged = judge(report, inventory, default_profile(), std::nullopt);
  ASSERT_EQ(judged.judgements.size(), 3u);
  for (int i = 0; i < 2; ++i) {
    const Judgement& j = judged.judgements[i];
    EXPECT_EQ(j.verdict, Verdict::info) << j.subject;
    EXPECT_TRUE(contains(j.explanation, "a cost a sample of the loader's path in one process")) << j.explanation;
    EXPECT_FALSE(contains(j.explanation, "reference")) << j.explanation;
    EXPECT_TRUE(contains(report.probes[0].measurements[i].ceiling.unknown_reason, "no hardware ceiling: a cost a sample"))
        << report.probes[0].measurements[i].ceiling.unknown_reason;
  }
  EXPECT_TRUE(contains(judged.judgements[2].explanation, "the 1-thread rate is the per-core reference"))
      << judged.judgements[2].explanation;
}

// The idle link reads 2.5 GT/s: copies above its 4 GB/s are the link training up, not invalid;
// above the link's maximum they are.
TEST(JudgeInvalid, PcieIsHeldAgainstTheLinksMaximum) {
  Inventory inventory;
  inventory.gpus.push_back(gpu_with_link(2.5, 16, 32, 16));
  Measurement h2d;
  h2d.key = "pcie/h2d/pinned/gpu0";
  h2d.stage = "pcie";
  h2d.unit = "GB/s";
  h2d.stats = {52, 51, 53, 5};
  h2d.params = {{"direction", "h2d"}, {"host_memory", "pinned"}, {"numa", "local"}, {"gpu_bdf", "0000:17:00.0"}};
  Report report = report_of({h2d}, "pcie");
  attach_ceilings(report, inventory);
  EXPECT_GT(*report.probes[0].measurements[0].percent_of_ceiling, 1000);  // of the idle link
  EXPECT_NE(only(report, inventory).verdict, Verdict::invalid);
  report.probes[0].measurements[0].stats.median = 70;  // 111% of 63.0 GB/s (Gen5 x16)
  const Judgement j = only(report, inventory);
  EXPECT_EQ(j.verdict, Verdict::invalid);
  EXPECT_TRUE(contains(j.explanation, "above the physical ceiling 63.0 GB/s")) << j.explanation;
}

// The CPU burn figure: 78880 GFLOP/s on 2 cores, where no ceiling is known.
TEST(JudgeInvalid, CpuFlopsAboveTheSanityBound) {
  Inventory inventory;
  inventory.cpu.physical_cores = 2;
  Measurement burn = judged_against("stress/cpu/fp64", "stress", 78880, 0, {{"dtype", "fp64"}}, "GFLOP/s");
  burn.ceiling = CeilingResult::unknown("unknown: no cpufreq max clock");
  const Judgement j = only(report_of({burn}, "stress"), inventory);
  EXPECT_EQ(j.verdict, Verdict::invalid);
  EXPECT_TRUE(contains(j.explanation, "above the physical ceiling 384 GFLOP/s")) << j.explanation;
  EXPECT_TRUE(contains(j.explanation, "384 GFLOP/s = 2 cores x 6 GHz x 32 FP64 FLOP/cycle")) << j.explanation;
  burn.stats.median = 93;  // a register FMA loop on this VM
  EXPECT_NE(only(report_of({burn}, "stress"), inventory).verdict, Verdict::invalid);
}

TEST(JudgeReport, NothingJudgedIsInfoAndExitsZero) {
  const Judged judged = judge({}, {}, default_profile(), std::nullopt);
  EXPECT_EQ(judged.overall, Verdict::info);
  EXPECT_EQ(exit_code_of(judged), 0);
}

// One severity for one measurement: a finding citing a failing measurement is a failure too.
TEST(JudgeFindings, AFindingIsAsSevereAsTheWorstVerdictItCites) {
  Judged judged;
  judged.judgements = {{"decode/full/threads:2", "decode", "", Verdict::fail, "", ""},
                       {"decode/full/threads:1", "decode", "", Verdict::info, "", ""},
                       {"pcie/h2d/pinned/gpu0", "pcie", "", Verdict::pass, "", ""},
                       {"hostmem/read/threads:2", "hostmem", "", Verdict::inconclusive, "", ""}};
  judged.findings = {{Verdict::warn, "decode", "poor scaling", {"decode/full/threads:1", "decode/full/threads:2"}},
                     {Verdict::info, "pcie", "pinned is fine", {"pcie/h2d/pinned/gpu0"}},
                     {Verdict::warn, "storage", "a slow disk", {"storage/rand_read/sda"}},
                     {Verdict::info, "hostmem", "noisy", {"hostmem/read/threads:2"}},
                     {Verdict::fail, "pcie", "link down", {"pcie/h2d/pinned/gpu0"}}};
  align_finding_severities(judged);
  EXPECT_EQ(judged.findings[0].severity, Verdict::fail);          // raised to its evidence's fail
  EXPECT_EQ(judged.findings[1].severity, Verdict::info);          // a pass does not make it "pass"
  EXPECT_EQ(judged.findings[2].severity, Verdict::warn);          // no verdict behind it: as it was
  EXPECT_EQ(judged.findings[3].severity, Verdict::inconclusive);
  EXPECT_EQ(judged.findings[4].severity, Verdict::fail);          // never lowered
}

}  // namespace
}  // namespace pipecheck
