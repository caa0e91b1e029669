// run --plan: the time bounds of a stopping rule, the probes' own lists on this machine, and the
// stage records' planned cases, which must name as many cases as the probes list.
#include "app/run_plan.hpp"

#include <gtest/gtest.h>

#include "core/stage_registry.hpp"
#include "core/sysfs.hpp"
#include "inventory/inventory_collect.hpp"
#include "tests/pipecheck_cli.hpp"

namespace pipecheck {
namespace {

using testing::CliRun;
using testing::run_pipecheck;

const char* const kH200Inventory = PIPECHECK_TEST_DATA "/golden/h200/inventory.json";

TEST(RunPlan, TimeBoundsFollowTheStoppingRule) {
  const RepetitionPolicy rule{5, 100, 3.0, 2.5};
  // Two groups: a case at 1 and 2 threads, and a case alone; a repetition 0.2 s.
  const std::vector<std::string> cases = {"decode/full/real_time/threads:1", "decode/full/real_time/threads:2",
                                          "hostmem/read/real_time/threads:1"};
  const TimeBounds bounds = plan_case_time(cases, rule, 0.2, false);
  EXPECT_DOUBLE_EQ(bounds.at_least, 5 * 2 * 0.2 + 5 * 0.2);
  // Each group stops one round past its cap (2.5 s a case).
  EXPECT_DOUBLE_EQ(bounds.at_most, (2.5 * 2 + 0.4) + (2.5 + 0.2));
  // A fixed count (comm's ranks) runs the minimum whatever the rule.
  const TimeBounds fixed = plan_case_time(cases, rule, 0.2, true);
  EXPECT_DOUBLE_EQ(fixed.at_most, fixed.at_least);
  // A maximum below the cap bounds it.
  EXPECT_DOUBLE_EQ(plan_case_time({"x"}, RepetitionPolicy{5, 6, 3.0, 60}, 0.2, false).at_most, 6 * 0.2);
}

// The probes list their cases here; the records plan the same count from this machine's
// inventory (the check gpu-check.sh makes for the GPU stages on a GPU node).
TEST(RunPlan, RecordsPlanWhatTheCpuProbesList) {
  RunOptions options;
  options.mode = ProbeMode::quick;
  options.probe_dir = PIPECHECK_BIN_DIR;
  options.only = {"storage", "decode", "hostmem"};
  const RunPlan listed = plan_run(options, probe_catalog());
  const Inventory here = collect_inventory(SysfsRoot("/"));
  ASSERT_EQ(listed.stages.size(), 3u);
  for (const StagePlan& stage : listed.stages) {
    ASSERT_TRUE(stage.skipped.empty()) << stage.stage << ": " << stage.skipped;
    EXPECT_EQ(stage.source, "listed by " + stage.executable);
    EXPECT_GT(stage.time.at_most, stage.time.at_least);
    const StageSpec* spec = find_stage(stage.stage);
    ASSERT_TRUE(spec && spec->planned_cases);
    EXPECT_EQ(spec->planned_cases(here, options.mode).size(), stage.cases.size()) << stage.stage;
  }
}

TEST(RunPlan, PlansAnEightGpuNodeFromItsInventory) {
  RunOptions options;
  options.mode = ProbeMode::quick;
  const RunPlan plan = plan_run(options, probe_catalog(), kH200Inventory);
  int gpu_cases = 0;
  for (const StagePlan& stage : plan.stages) {
    EXPECT_TRUE(stage.skipped.empty()) << stage.stage << ": " << stage.skipped;
    EXPECT_EQ(stage.source, "planned from inventory.json");
    const StageSpec* spec = find_stage(stage.stage);
    if (spec->runs_on_gpu) gpu_cases += static_cast<int>(stage.cases.size());
  }
  EXPECT_GT(gpu_cases, 8 * 4);  // every GPU's cases
  EXPECT_LT(plan.total.at_most, 5 * 60) << render_plan(plan);
  const std::string text = render_plan(plan);
  EXPECT_NE(text.find("total"), std::string::npos);
  EXPECT_NE(text.find("planned from inventory.json"), std::string::npos);
}

TEST(RunPlan, CommandPrintsThePlanAndRunsNothing) {
  const CliRun plan = run_pipecheck({"run", "--plan", "--quick", "--only", "hostmem"});
  EXPECT_EQ(plan.process.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("listed by pipecheck-hostmem"), std::string::npos) << plan.out;
  const CliRun bad = run_pipecheck({"run", "--plan", "--plan-inventory", "/nonexistent/inventory.json"});
  EXPECT_EQ(bad.process.exit_code, 2);
  EXPECT_NE(bad.err.find("--plan-inventory /nonexistent/inventory.json"), std::string::npos) << bad.err;
  const CliRun lonely = run_pipecheck({"run", "--plan-inventory", kH200Inventory});
  EXPECT_EQ(lonely.process.exit_code, 2);
}

}  // namespace
}  // namespace pipecheck
