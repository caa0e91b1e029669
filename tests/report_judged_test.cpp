// report.json with the judge's records: verdicts, findings and the budget read back exactly,
// and a report written before the judge existed still reads.
#include <gtest/gtest.h>

#include "report/report.hpp"

namespace pipecheck {
namespace {

Report judged_report() {
  Report report;
  report.host = "gpu-node-01";
  report.mode = "quick";
  Measurement m;
  m.key = "pcie/h2d/pinned/gpu0";
  m.stage = "pcie";
  m.unit = "GB/s";
  m.stats = {45, 44, 46, 5};
  report.probes.push_back({"pipecheck-pcie", "pcie", ProbeStatus::ok, "", 2, {m}, {}});
  report.judged.judgements.push_back({"pcie/h2d/pinned/gpu0", "pcie", "pinned H2D", Verdict::fail,
                                      "pcie.pinned_h2d_min_percent = 80", "45.0 GB/s is 71.4% of 63.0 GB/s (link)"});
  report.judged.judgements.push_back({"probe/compute", "compute", "pipecheck-compute", Verdict::skipped, "", "skipped: no CUDA device"});
  report.judged.findings.push_back({Verdict::warn, "pcie", "pageable H2D reaches 9.00 GB/s against 45.0 GB/s pinned",
                                    {"pcie/h2d/pageable/gpu0", "pcie/h2d/pinned/gpu0"}});
  PipelineBudget budget;
  budget.workload = "images of 450 KB";
  budget.stages.push_back({"storage", 14000.0 / 3, "6.3 GB/s / 450 KB"});
  budget.stages.push_back({"gpu_step", std::nullopt, "give batch= and step_ms="});
  budget.bounding_stage = "storage";
  budget.explanation = "training is bounded by storage";
  report.judged.budget = budget;
  report.judged.overall = Verdict::fail;
  return report;
}

void expect_same(const Judged& a, const Judged& b) {
  EXPECT_EQ(a.overall, b.overall);
  ASSERT_EQ(a.judgements.size(), b.judgements.size());
  for (std::size_t i = 0; i < a.judgements.size(); ++i) {
    EXPECT_EQ(a.judgements[i].subject, b.judgements[i].subject);
    EXPECT_EQ(a.judgements[i].stage, b.judgements[i].stage);
    EXPECT_EQ(a.judgements[i].what, b.judgements[i].what);
    EXPECT_EQ(a.judgements[i].verdict, b.judgements[i].verdict);
    EXPECT_EQ(a.judgements[i].rule, b.judgements[i].rule);
    EXPECT_EQ(a.judgements[i].explanation, b.judgements[i].explanation);
  }
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (std::size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].severity, b.findings[i].severity);
    EXPECT_EQ(a.findings[i].stage, b.findings[i].stage);
    EXPECT_EQ(a.findings[i].text, b.findings[i].text);
    EXPECT_EQ(a.findings[i].evidence, b.findings[i].evidence);
  }
  ASSERT_EQ(a.budget.has_value(), b.budget.has_value());
  if (!a.budget) return;
  EXPECT_EQ(a.budget->workload, b.budget->workload);
  EXPECT_EQ(a.budget->bounding_stage, b.budget->bounding_stage);
  EXPECT_EQ(a.budget->explanation, b.budget->explanation);
  ASSERT_EQ(a.budget->stages.size(), b.budget->stages.size());
  for (std::size_t i = 0; i < a.budget->stages.size(); ++i) {
    EXPECT_EQ(a.budget->stages[i].stage, b.budget->stages[i].stage);
    EXPECT_EQ(a.budget->stages[i].samples_per_second, b.budget->stages[i].samples_per_second);  // exact
    EXPECT_EQ(a.budget->stages[i].derivation, b.budget->stages[i].derivation);
  }
}

TEST(ReportJudgedJson, RoundTripIsExact) {
  const Report report = judged_report();
  const nlohmann::json document = report_to_json(report);
  EXPECT_EQ(document.at("overall"), "fail");
  EXPECT_EQ(document.at("verdicts").size(), 2u);
  EXPECT_EQ(document.at("verdicts")[0].at("verdict"), "fail");
  EXPECT_TRUE(document.at("budget").at("stages")[1].at("samples_per_second").is_null());
  const Report back = report_from_json(nlohmann::json::parse(document.dump()));
  expect_same(report.judged, back.judged);
  EXPECT_EQ(report_to_json(back), document);
}

TEST(ReportJudgedJson, NoBudgetIsNull) {
  Report report = judged_report();
  report.judged.budget.reset();
  const nlohmann::json document = report_to_json(report);
  EXPECT_TRUE(document.at("budget").is_null());
  EXPECT_FALSE(report_from_json(document).judged.budget.has_value());
}

TEST(ReportJudgedJson, UnjudgedReportReadsAsInfo) {
  nlohmann::json document = report_to_json(judged_report());
  for (const char* key : {"overall", "verdicts", "findings", "budget"}) document.erase(key);
  const Report back = report_from_json(document);
  EXPECT_EQ(back.judged.overall, Verdict::info);
  EXPECT_TRUE(back.judged.judgements.empty());
  EXPECT_FALSE(back.judged.budget.has_value());
}

TEST(ReportJudgedJson, UnknownVerdictIsAnError) {
  nlohmann::json document = report_to_json(judged_report());
  document["verdicts"][0]["verdict"] = "passed";
  EXPECT_THROW(report_from_json(document), std::runtime_error);
}

}  // namespace
}  // namespace pipecheck
