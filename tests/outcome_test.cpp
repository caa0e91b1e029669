// The outcome model: names round-trip, the order of verdicts, exit codes that never let
// "inconclusive" hide a failure, the JUnit and Prometheus mappings, and schema versions.
#include "core/outcome.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

const Verdict kAllVerdicts[] = {Verdict::pass,         Verdict::warn, Verdict::fail,   Verdict::invalid,
                                Verdict::inconclusive, Verdict::info, Verdict::skipped};

TEST(Outcome, VerdictNamesRoundTrip) {
  for (Verdict v : kAllVerdicts) EXPECT_EQ(parse_verdict(to_string(v)), v) << to_string(v);
  EXPECT_FALSE(parse_verdict("passed").has_value());
}

TEST(Outcome, ProbeStatusNamesRoundTripAndUnknownReadsAsFailed) {
  for (ProbeStatus s : {ProbeStatus::ok, ProbeStatus::skipped, ProbeStatus::not_built, ProbeStatus::failed,
                        ProbeStatus::interrupted}) {
    EXPECT_EQ(parse_probe_status(to_string(s)), s) << to_string(s);
  }
  EXPECT_EQ(parse_probe_status("exploded"), ProbeStatus::failed);
}

TEST(Outcome, OverallOrderIsInvalidFailInconclusiveWarnPassInfoSkipped) {
  const Verdict order[] = {Verdict::skipped, Verdict::info,         Verdict::pass,   Verdict::warn,
                           Verdict::inconclusive, Verdict::fail, Verdict::invalid};
  for (std::size_t i = 0; i + 1 < std::size(order); ++i) {
    EXPECT_LT(severity(order[i]), severity(order[i + 1])) << to_string(order[i]);
    EXPECT_EQ(worse(order[i], order[i + 1]), order[i + 1]);
    EXPECT_EQ(worse(order[i + 1], order[i]), order[i + 1]);
  }
}

TEST(Outcome, ExitCodeOfAVerdict) {
  EXPECT_EQ(exit_code_for(Verdict::pass), ExitCode::ok);
  EXPECT_EQ(exit_code_for(Verdict::warn), ExitCode::ok);
  EXPECT_EQ(exit_code_for(Verdict::info), ExitCode::ok);
  EXPECT_EQ(exit_code_for(Verdict::skipped), ExitCode::ok);
  EXPECT_EQ(exit_code_for(Verdict::inconclusive), ExitCode::inconclusive);
  EXPECT_EQ(exit_code_for(Verdict::fail), ExitCode::failed);
  EXPECT_EQ(exit_code_for(Verdict::invalid), ExitCode::failed);
  EXPECT_EQ(code(ExitCode::inconclusive), 4);
  EXPECT_EQ(code(ExitCode::interrupted), 130);
}

TEST(Outcome, InconclusiveNeverHidesAFailure) {
  // A numerically larger code (4) must not win over a failure (1), in either order.
  EXPECT_EQ(combine(ExitCode::inconclusive, ExitCode::failed), ExitCode::failed);
  EXPECT_EQ(combine(ExitCode::failed, ExitCode::inconclusive), ExitCode::failed);
  EXPECT_EQ(combine(ExitCode::ok, ExitCode::inconclusive), ExitCode::inconclusive);
  EXPECT_EQ(combine(ExitCode::failed, ExitCode::usage), ExitCode::usage);
  EXPECT_EQ(combine(ExitCode::usage, ExitCode::could_not_run), ExitCode::could_not_run);
  EXPECT_EQ(combine(ExitCode::could_not_run, ExitCode::interrupted), ExitCode::interrupted);
}

TEST(Outcome, ExitCodesReadBackFromInts) {
  for (int value : {0, 1, 2, 3, 4, 130}) EXPECT_EQ(code(exit_code_from_int(value)), value);
  EXPECT_EQ(exit_code_from_int(77), ExitCode::could_not_run);
}

TEST(Outcome, JunitElements) {
  EXPECT_EQ(junit_element(Verdict::fail, false), JunitElement::failure);
  EXPECT_EQ(junit_element(Verdict::fail, true), JunitElement::error);
  EXPECT_EQ(junit_element(Verdict::invalid, false), JunitElement::error);
  EXPECT_EQ(junit_element(Verdict::inconclusive, false), JunitElement::skipped);
  EXPECT_EQ(junit_element(Verdict::skipped, false), JunitElement::skipped);
  for (Verdict v : {Verdict::pass, Verdict::warn, Verdict::info}) {
    EXPECT_EQ(junit_element(v, false), JunitElement::none) << to_string(v);
  }
}

TEST(Outcome, PrometheusValuesFollowTheSeverityOrder) {
  for (Verdict a : kAllVerdicts) {
    for (Verdict b : kAllVerdicts) {
      EXPECT_EQ(severity(a) < severity(b), prometheus_verdict_value(a) < prometheus_verdict_value(b));
    }
  }
  EXPECT_EQ(prometheus_verdict_value(Verdict::skipped), 0);
  EXPECT_EQ(prometheus_verdict_value(Verdict::invalid), 6);
}

TEST(Outcome, NewerSchemaIsRefusedByNameOlderIsRead) {
  EXPECT_NO_THROW(check_schema_version("report.json", 1, kReportSchemaVersion));
  EXPECT_NO_THROW(check_schema_version("report.json", kReportSchemaVersion, kReportSchemaVersion));
  try {
    check_schema_version("inventory.json", 9, 1);
    FAIL() << "version 9 was accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "inventory.json: schema version 9 is newer than this pipecheck reads (1): use a newer pipecheck");
  }
}

}  // namespace
}  // namespace pipecheck
