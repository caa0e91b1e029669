// When a probe stops repeating a case: the count, noise and time rules, the flags and their
// ranges, and the groups of thread counts that stop together.
#include "core/stopping_rule.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

ProbeOptions options_with(std::map<std::string, std::string> flags, ProbeMode mode = ProbeMode::standard) {
  ProbeOptions options;
  options.mode = mode;
  for (const auto& [name, value] : flags) options.values[name].push_back(value);
  return options;
}

TEST(StoppingRule, DefaultsByMode) {
  const RepetitionPolicy quick = default_repetition_policy(ProbeMode::quick);
  EXPECT_TRUE(quick.fixed());
  EXPECT_GE(quick.min_repetitions, 5);
  const RepetitionPolicy standard = default_repetition_policy(ProbeMode::standard);
  EXPECT_EQ(standard.min_repetitions, 5);
  EXPECT_GT(standard.max_repetitions, standard.min_repetitions);
  EXPECT_DOUBLE_EQ(standard.target_noise_percent, 2.0);
  EXPECT_GT(standard.case_seconds, 0);
  EXPECT_EQ(repetition_policy(options_with({}, ProbeMode::full)).min_repetitions, 10);
  EXPECT_EQ(standard.describe(), "5 to 100 repetitions until the median's noise is <= 2%, at most 10 s a case");
  EXPECT_EQ(quick.describe(), "5 repetitions");
}

TEST(StoppingRule, FlagsSetTheRule) {
  const auto fixed = repetition_policy(options_with({{"repetitions", "7"}}));
  EXPECT_EQ(fixed.min_repetitions, 7);
  EXPECT_TRUE(fixed.fixed());
  const auto range = repetition_policy(
      options_with({{"min_repetitions", "3"}, {"max_repetitions", "9"}, {"target_noise", "0.5"}, {"case_seconds", "2.5"}}));
  EXPECT_EQ(range.min_repetitions, 3);
  EXPECT_EQ(range.max_repetitions, 9);
  EXPECT_DOUBLE_EQ(range.target_noise_percent, 0.5);
  EXPECT_DOUBLE_EQ(range.case_seconds, 2.5);
  // A minimum above the default maximum lifts it; quick mode given a range gets a time cap.
  EXPECT_EQ(repetition_policy(options_with({{"min_repetitions", "150"}})).max_repetitions, 150);
  EXPECT_GT(repetition_policy(options_with({{"max_repetitions", "9"}}, ProbeMode::quick)).case_seconds, 0);
  EXPECT_TRUE(has_repetition_flags(options_with({{"target_noise", "1"}})));
  EXPECT_FALSE(has_repetition_flags(options_with({{"size", "1"}})));
}

TEST(StoppingRule, BadFlagsNameTheFlagAndValue) {
  const std::vector<std::map<std::string, std::string>> bad = {
      {{"repetitions", "0"}},         {{"repetitions", "five"}},        {{"repetitions", "10001"}},
      {{"min_repetitions", "-1"}},    {{"max_repetitions", "2"}, {"min_repetitions", "3"}},
      {{"target_noise", "0"}},        {{"target_noise", "nan"}},        {{"target_noise", "2%"}},
      {{"target_noise", "101"}},      {{"case_seconds", "inf"}},        {{"case_seconds", ""}},
      {{"repetitions", "5"}, {"max_repetitions", "9"}},
  };
  for (const auto& flags : bad) {
    try {
      repetition_policy(options_with(flags));
      ADD_FAILURE() << "accepted " << flags.begin()->first << "=" << flags.begin()->second;
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--pipecheck_"), std::string::npos) << error.what();
    }
  }
}

TEST(StoppingRule, GroupStopsOnCountNoiseOrTime) {
  RepetitionPolicy policy{5, 8, 2.0, 10};
  const std::vector<double> quiet = {100, 100.5, 99.5, 100.2, 99.8};
  const std::vector<double> noisy = {100, 120, 80, 110, 90};
  EXPECT_EQ(group_stop_reason({{100, 100, 100}}, 0, policy), StopReason::running);  // below the minimum
  EXPECT_EQ(group_stop_reason({quiet}, 1, policy), StopReason::converged);
  EXPECT_EQ(group_stop_reason({noisy}, 1, policy), StopReason::running);
  // One noisy member keeps the whole group going: its repetitions stay paired.
  EXPECT_EQ(group_stop_reason({quiet, noisy}, 1, policy), StopReason::running);
  EXPECT_EQ(group_stop_reason({noisy, quiet}, 1, policy), StopReason::running);
  // The cap is per case: a group of two may take twice as long.
  EXPECT_EQ(group_stop_reason({quiet, noisy}, 15, policy), StopReason::running);
  EXPECT_EQ(group_stop_reason({quiet, noisy}, 20, policy), StopReason::time_cap);
  std::vector<double> eight = noisy;
  eight.insert(eight.end(), {105, 95, 100});
  EXPECT_EQ(group_stop_reason({eight}, 1, policy), StopReason::max_repetitions);
  EXPECT_EQ(group_stop_reason({noisy}, 1, RepetitionPolicy{5, 5, 2.0, 0}), StopReason::fixed_count);
}

TEST(StoppingRule, StopsSayWhy) {
  const RepetitionPolicy policy{5, 100, 2.0, 10};
  EXPECT_EQ(describe_stop(StopReason::converged, {100, 101, 99, 100.5, 99.5}, policy),
            "converged: noise 1.0% <= 2% after 5 repetitions");
  EXPECT_EQ(describe_stop(StopReason::time_cap, {100, 110, 90, 105, 95}, policy),
            "time cap (10 s a case) after 5 repetitions: noise 10%, target 2%");
  EXPECT_EQ(describe_stop(StopReason::fixed_count, {1, 1, 1}, {3, 3, 2, 0}), "fixed count of 3 repetitions: noise 0.0%");
}

// With verdicts to decide: a judged member stops once decided and its unjudged reference with
// it; an undecided one keeps the group going to the cap; a group nothing judges is held to the
// noise target, or (quick, --pipecheck_target_noise=none) stops at the minimum.
TEST(StoppingRule, DecidedVerdictsStopTheirGroup) {
  RepetitionPolicy policy{5, 100, 3.0, 2.5};
  policy.decide_verdicts = true;
  const std::vector<double> noisy = {100, 120, 80, 110, 90};
  const CaseDecision reference{}, decided{true, true, "pass at both ends"}, open{true, false, "spans warn to pass"};
  EXPECT_EQ(group_stop_reason({noisy, noisy}, 1, policy, {reference, decided}), StopReason::decided);
  EXPECT_EQ(group_stop_reason({noisy, noisy}, 1, policy, {reference, open}), StopReason::running);
  EXPECT_EQ(group_stop_reason({noisy, noisy}, 5, policy, {reference, open}), StopReason::time_cap);
  EXPECT_EQ(group_stop_reason({{100, 100, 100}, {100, 100, 100}}, 1, policy, {reference, decided}), StopReason::running);
  EXPECT_EQ(group_stop_reason({noisy}, 1, policy, {reference}), StopReason::running);
  EXPECT_EQ(group_stop_reason({{100, 100.5, 99.5, 100.2, 99.8}}, 1, policy, {reference}), StopReason::converged);
  RepetitionPolicy quick = policy;
  quick.hold_figures_to_noise = false;
  EXPECT_EQ(group_stop_reason({noisy}, 1, quick, {reference}), StopReason::minimum_count);
  EXPECT_EQ(group_stop_reason({noisy, noisy}, 1, quick, {reference, open}), StopReason::running);
  // Without verdicts to decide, a decision is not read.
  EXPECT_EQ(group_stop_reason({noisy, noisy}, 1, RepetitionPolicy{5, 100, 3.0, 2.5}, {reference, decided}),
            StopReason::running);
}

TEST(StoppingRule, VerdictStopsSayWhyAndHowLong) {
  RepetitionPolicy policy{5, 100, 3.0, 2.5};
  policy.decide_verdicts = true;
  const std::vector<double> values = {100, 110, 90, 105, 95};
  EXPECT_EQ(describe_stop(StopReason::decided, values, policy, {true, true, "pass at both ends"}, 3.14, 2),
            "verdict decided after 5 repetitions: pass at both ends; 3.1 s for its group of 2");
  EXPECT_EQ(describe_stop(StopReason::decided, values, policy, {}, 3.14, 2),
            "stopped with the verdicts it is the reference of, after 5 repetitions: noise 10%; 3.1 s for its group of 2");
  EXPECT_EQ(describe_stop(StopReason::time_cap, values, policy, {true, false, "spans warn to pass"}, 5.0),
            "time cap (2.5 s a case) after 5 repetitions: noise 10%: verdict not decided: spans warn to pass; 5.0 s");
  EXPECT_EQ(describe_stop(StopReason::minimum_count, values, policy),
            "minimum of 5 repetitions (no threshold to decide): noise 10%");
  EXPECT_EQ(policy.describe(),
            "5 to 100 repetitions until each verdict is decided (figures without a threshold: until the median's "
            "noise is <= 3%), at most 2.5 s a case");
}

// A figure another figure is computed from (the budget reads the loader's 1-thread rate) goes
// on after the verdicts it is the reference of are decided, until its own noise is under the
// target, also where unjudged figures would stop at the minimum (quick), or to the cap.
TEST(StoppingRule, AHeldFigureGoesOnUntilItsNoiseIsUnderTheTarget) {
  RepetitionPolicy policy{5, 100, 3.0, 2.5};
  policy.decide_verdicts = true;
  const std::vector<double> noisy = {100, 120, 80, 110, 90}, settled = {100, 100.5, 99.5, 100.2, 99.8};
  CaseDecision held{}, decided{true, true, "pass at both ends"};
  held.held_to_noise = true;
  EXPECT_EQ(group_stop_reason({noisy, noisy}, 1, policy, {held, decided}), StopReason::running);
  EXPECT_EQ(group_stop_reason({settled, noisy}, 1, policy, {held, decided}), StopReason::decided);
  EXPECT_EQ(group_stop_reason({noisy, noisy}, 5, policy, {held, decided}), StopReason::time_cap);
  RepetitionPolicy quick = policy;
  quick.hold_figures_to_noise = false;
  EXPECT_EQ(group_stop_reason({noisy}, 1, quick, {held}), StopReason::running);
  EXPECT_EQ(group_stop_reason({settled}, 1, quick, {held}), StopReason::converged);
  EXPECT_EQ(group_stop_reason({noisy, noisy}, 1, quick, {held, decided}), StopReason::running);

  EXPECT_EQ(describe_stop(StopReason::decided, settled, policy, held),
            "held to the noise target (another figure is computed from it): noise 0.5% <= 3% after 5 repetitions, "
            "the verdicts it is the reference of decided");
  EXPECT_EQ(describe_stop(StopReason::time_cap, noisy, policy, held),
            "time cap (2.5 s a case) after 5 repetitions: noise 20%, target 3% (another figure is computed from it)");
  EXPECT_EQ(describe_stop(StopReason::time_cap, noisy, policy, decided),
            "time cap (2.5 s a case) after 5 repetitions: noise 20%: verdict decided (pass at both ends); its group "
            "went on for a figure held to the noise target");
  EXPECT_EQ(describe_stop(StopReason::converged, settled, quick, held),
            "converged: noise 0.5% <= 3% after 5 repetitions (another figure is computed from it)");
}

TEST(StoppingRule, VerdictFlags) {
  const auto decide = repetition_policy(options_with({{"verdict_inventory", "/r/inventory.json"}, {"target_noise", "none"}}));
  EXPECT_TRUE(decide.decide_verdicts);
  EXPECT_FALSE(decide.hold_figures_to_noise);
  EXPECT_FALSE(repetition_policy(options_with({})).decide_verdicts);
  // "none" alone would leave nothing to stop a case before its maximum.
  EXPECT_THROW(repetition_policy(options_with({{"target_noise", "none"}})), UsageError);
}

TEST(StoppingRule, ThreadCountsOfACaseFormOneGroup) {
  EXPECT_EQ(scaling_group_key("decode/full/real_time/threads:2"), "decode/full/real_time");
  EXPECT_EQ(scaling_group_key("decode/full/real_time/threads:1"), scaling_group_key("decode/full/real_time/threads:8"));
  EXPECT_NE(scaling_group_key("decode/full/real_time/threads:1"), scaling_group_key("decode/resize/real_time/threads:1"));
  EXPECT_EQ(scaling_group_key("storage/seq_read"), "storage/seq_read");
}

}  // namespace
}  // namespace pipecheck
