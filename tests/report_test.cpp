// Attaching ceilings: the stage finds its ceiling in the inventory; % of ceiling only when the
// units agree; unknown stays unknown with its reason.
#include "reports/report.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

Report report_with(const std::string& stage, double median_gbps) {
  Measurement m;
  m.key = stage + "/memcpy/threads:64";
  m.stage = stage;
  m.unit = "GB/s";
  m.stats = {median_gbps, median_gbps, median_gbps, 1};
  Report report;
  report.probes.push_back({"probe", stage, ProbeStatus::ok, "", 1, {m}, {}});
  return report;
}

Inventory inventory_with_channels(std::optional<int> channels) {
  Inventory inv;
  inv.memory.memory_channels = channels;
  for (int i = 0; i < 12; ++i) inv.memory.dimms.push_back({"DIMM", 64ull << 30, 4800, 64, "DDR5"});
  return inv;
}

TEST(AttachCeilings, HostMemoryAgainstDram) {
  Report report = report_with("hostmem", 307.2);
  attach_ceilings(report, inventory_with_channels(12));
  const Measurement& m = report.probes[0].measurements[0];
  ASSERT_TRUE(m.ceiling.ceiling.has_value());
  EXPECT_NEAR(m.ceiling.ceiling->value, 460.8, 0.01);  // 12 x 4800 MT/s x 8 bytes
  ASSERT_TRUE(m.percent_of_ceiling.has_value());
  EXPECT_NEAR(*m.percent_of_ceiling, 66.67, 0.01);
}

TEST(AttachCeilings, UnknownStaysUnknown) {
  Report report = report_with("hostmem", 10);
  attach_ceilings(report, inventory_with_channels(std::nullopt));
  const Measurement& m = report.probes[0].measurements[0];
  EXPECT_FALSE(m.ceiling.ceiling.has_value());
  EXPECT_NE(m.ceiling.unknown_reason.find("channel"), std::string::npos);
  EXPECT_FALSE(m.percent_of_ceiling.has_value());
}

TEST(AttachCeilings, StageWithoutModelSaysSo) {
  Report report = report_with("teleport", 10);
  attach_ceilings(report, inventory_with_channels(12));
  EXPECT_EQ(report.probes[0].measurements[0].ceiling.unknown_reason,
            "no ceiling model for stage 'teleport'");
}

TEST(AttachCeilings, NoPercentWhenUnitsDiffer) {
  Report report = report_with("hostmem", 10);
  report.probes[0].measurements[0].unit = "IOPS";
  attach_ceilings(report, inventory_with_channels(12));
  EXPECT_FALSE(report.probes[0].measurements[0].percent_of_ceiling.has_value());
}

}  // namespace
}  // namespace pipecheck
