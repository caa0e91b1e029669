// The terminal summary's width: --width, then COLUMNS, then the terminal, then 100.
#include "app/terminal_width.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(TerminalWidth, FlagThenColumnsThenTerminalThenDefault) {
  EXPECT_EQ(summary_width(90, "132", 200), 90);
  EXPECT_EQ(summary_width(std::nullopt, "132", 200), 132);
  EXPECT_EQ(summary_width(std::nullopt, nullptr, 200), 200);
  EXPECT_EQ(summary_width(std::nullopt, nullptr, std::nullopt), 100);
}

TEST(TerminalWidth, ColumnsThatIsNotANumberIsIgnored) {
  EXPECT_EQ(summary_width(std::nullopt, "", 77), 77);
  EXPECT_EQ(summary_width(std::nullopt, "wide", 77), 77);
  EXPECT_EQ(summary_width(std::nullopt, "80x", std::nullopt), 100);
  EXPECT_EQ(summary_width(std::nullopt, "-5", std::nullopt), 100);
  EXPECT_EQ(summary_width(std::nullopt, "0", std::nullopt), 100);
}

}  // namespace
}  // namespace pipecheck
