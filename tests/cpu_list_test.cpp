// The kernel's CPU lists and masks, both ways.
#include "inventory/cpu_list.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(CpuList, ParsesListsAndRanges) {
  EXPECT_EQ(cpu_set_from_list("0-3,8,10-11\n"), (CpuSet{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(cpu_set_from_list(""), CpuSet{});
  EXPECT_FALSE(cpu_set_from_list("3-1").has_value());
  EXPECT_FALSE(cpu_set_from_list("a").has_value());
  EXPECT_FALSE(cpu_set_from_list("1,,2").has_value());
}

TEST(CpuList, ParsesMasksInThirtyTwoBitGroups) {
  EXPECT_EQ(cpu_set_from_mask("0000000f"), (CpuSet{0, 1, 2, 3}));
  // The most significant group comes first: CPU 32 is bit 0 of the first group here.
  EXPECT_EQ(cpu_set_from_mask("00000001,00000100\n"), (CpuSet{8, 32}));
  EXPECT_EQ(cpu_set_from_mask("ff"), (CpuSet{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(cpu_set_from_mask("00000000,00000000"), CpuSet{});
  EXPECT_FALSE(cpu_set_from_mask("0x0f").has_value());
  EXPECT_FALSE(cpu_set_from_mask("").has_value());
}

TEST(CpuList, FormatsRanges) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({5}), "5");
  EXPECT_EQ(format_cpu_list({}), "");
}

}  // namespace
}  // namespace pipecheck
