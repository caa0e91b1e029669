// The judge asked between rounds: a figure whose median's interval lies on one side of every
// threshold is decided, one whose interval spans a threshold is not, and a figure no threshold
// judges is left to the noise rule. Fed the Google Benchmark document a probe writes.
#include "judge/verdict_decider.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/probe_flags.hpp"
#include "core/repetition_rounds.hpp"
#include "judge/profile.hpp"
#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "core/temporary_folder.hpp"

namespace pipecheck {
namespace {

using nlohmann::json;

json decode_run(const std::string& op, int threads, double images_per_second) {
  const std::string name = "decode/" + op + "/real_time/threads:" + std::to_string(threads);
  return {{"name", name},
          {"run_name", name},
          {"run_type", "iteration"},
          {"threads", threads},
          {"iterations", 10},
          {"real_time", 1.0},
          {"time_unit", "ms"},
          {"images_per_second", images_per_second},
          {"label", "op=" + op + ";set=baseline;threads=" + std::to_string(threads) + ";what=" + op + ", " +
                        std::to_string(threads) + " threads"}};
}

// Rounds of one case at 1 and 2 threads: round i's 1-thread and 2-thread rates side by side.
std::string document(const std::string& op, const std::vector<double>& one, const std::vector<double>& two) {
  json runs = json::array();
  for (std::size_t i = 0; i < one.size(); ++i) {
    runs.push_back(decode_run(op, 1, one[i]));
    runs.push_back(decode_run(op, 2, two[i]));
  }
  return json{{"context", {{"pipecheck_stage", "decode"}, {"pipecheck_interleaved", "threads"}}}, {"benchmarks", runs}}
      .dump();
}

Inventory four_cores() {
  Inventory inventory;
  inventory.cpu.physical_cores = 4;
  return inventory;
}

std::string inventory_text() { return json(four_cores()).dump(); }

VerdictDecider decode_decider() { return VerdictDecider("decode", "pipecheck-decode", four_cores(), default_profile()); }

TEST(VerdictDecider, ScalingFarAboveTheMinimumIsDecidedPass) {
  // 2 threads at 95-99% of twice the 1-thread rate, pair by pair: far above 60% + 5.
  const auto decisions = decode_decider().decide(
      document("full", {100, 101, 99, 100, 102}, {190, 198, 194, 196, 200}));
  ASSERT_TRUE(decisions.count("decode/full/threads:2"));
  const CaseDecision& d = decisions.at("decode/full/threads:2");
  EXPECT_TRUE(d.judged);
  EXPECT_TRUE(d.decided) << d.why;
  EXPECT_NE(d.why.find("pass at both ends"), std::string::npos) << d.why;
  // The 1-thread figure is the reference: no threshold judges it.
  EXPECT_FALSE(decisions.count("decode/full/threads:1"));
}

TEST(VerdictDecider, ScalingFarBelowTheMinimumIsDecidedFail) {
  const auto decisions = decode_decider().decide(document("full", {100, 101, 99, 100, 102}, {80, 82, 79, 81, 80}));
  const CaseDecision& d = decisions.at("decode/full/threads:2");
  EXPECT_TRUE(d.decided) << d.why;
  EXPECT_NE(d.why.find("fail at both ends"), std::string::npos) << d.why;
}

TEST(VerdictDecider, AnIntervalAcrossTheMinimumIsNotDecided) {
  // Efficiencies from 50% to 85% pair by pair: the interval spans the 60% minimum.
  const auto decisions = decode_decider().decide(document("full", {100, 100, 100, 100, 100}, {100, 170, 120, 150, 130}));
  const CaseDecision& d = decisions.at("decode/full/threads:2");
  EXPECT_TRUE(d.judged);
  EXPECT_FALSE(d.decided) << d.why;
  EXPECT_NE(d.why.find("spans"), std::string::npos) << d.why;
}

TEST(VerdictDecider, AnIntervalAcrossTheWarnMarginIsNotDecided) {
  // Efficiencies 62-68%: never below the 60% minimum, but warn at one end and pass at the other.
  const auto decisions = decode_decider().decide(document("full", {100, 100, 100, 100, 100}, {124, 136, 128, 132, 130}));
  const CaseDecision& d = decisions.at("decode/full/threads:2");
  EXPECT_FALSE(d.decided) << d.why;
  EXPECT_NE(d.why.find("warn to pass"), std::string::npos) << d.why;
}

TEST(VerdictDecider, ReadsTheInventoryFileAndNamesABadOne) {
  const TemporaryFolder dir("pipecheck-verdict");
  const auto inventory = dir.path() / "inventory.json";
  write_file_atomically(inventory, "{\"cpu\": ");
  try {
    load_verdict_decider("decode", "pipecheck-decode", inventory, "");
    FAIL() << "accepted a broken inventory";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--pipecheck_verdict_inventory="), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("inventory.json"), std::string::npos) << error.what();
  }
  write_file_atomically(inventory, inventory_text());
  const auto decisions = load_verdict_decider("decode", "pipecheck-decode", inventory, "")
                             .decide(document("full", {100, 101, 99, 100, 102}, {190, 198, 194, 196, 200}));
  EXPECT_TRUE(decisions.at("decode/full/threads:2").decided);
}

TEST(VerdictDecider, TheProbeFlagsMakeOne) {
  const TemporaryFolder dir("pipecheck-verdict");
  const auto inventory = dir.path() / "inventory.json";
  write_file_atomically(inventory, inventory_text());
  ProbeOptions options;
  EXPECT_FALSE(verdict_case_decider("decode", "pipecheck-decode", options));  // none asked for
  options.values["verdict_inventory"] = {inventory.string()};
  const CaseDecider decider = verdict_case_decider("decode", "pipecheck-decode", options);
  ASSERT_TRUE(decider);
  EXPECT_TRUE(decider(document("full", {100, 101, 99, 100, 102}, {80, 82, 79, 81, 80})).at("decode/full/threads:2").decided);
}

}  // namespace
}  // namespace pipecheck
