// SVG labels laid out by estimated rendered width: wide letters take more room than narrow ones,
// lines never exceed their room, nothing is dropped.
#include "render/svg_text.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(SvgText, WidthFollowsTheLettersNotTheirCount) {
  // Ten characters each: "W" is about three times as wide as "i".
  EXPECT_GT(estimated_text_width("WWWWWWWWWW", 12), 2.5 * estimated_text_width("iiiiiiiiii", 12));
  EXPECT_NEAR(estimated_text_width("0123456789", 10), 10 * 0.636 * 10 * 1.05, 0.01);
  EXPECT_DOUBLE_EQ(estimated_text_width("ab", 24), 2 * estimated_text_width("ab", 12));
}

TEST(SvgText, WrapsWithinTheRoomAndKeepsEveryCharacter) {
  const std::string label = "pread 128 KiB 1 thread (num_workers=0), cold cache";
  const auto lines = wrap_to_width(label, 150, 12);
  ASSERT_GT(lines.size(), 1u);
  std::string joined;
  for (const auto& line : lines) {
    EXPECT_LE(estimated_text_width(line, 12), 150) << line;
    joined += (joined.empty() ? "" : " ") + line;
  }
  EXPECT_EQ(joined, label);
  // The start of the label is on the first line: nothing clipped at the left edge.
  EXPECT_EQ(lines.front().rfind("pread", 0), 0u);
}

TEST(SvgText, AWordWiderThanTheRoomIsSplit) {
  const auto lines = wrap_to_width("/datasets/imagenet/train/n01440764", 60, 12);
  std::string joined;
  for (const auto& line : lines) {
    EXPECT_LE(estimated_text_width(line, 12), 60) << line;
    joined += line;
  }
  EXPECT_EQ(joined, "/datasets/imagenet/train/n01440764");
  EXPECT_EQ(wrap_to_width("", 60, 12), std::vector<std::string>{""});
}

TEST(SvgText, OneTspanALineEscaped) {
  EXPECT_EQ(svg_text_lines({"a<b"}, {10, 20, 14, "end", "bar-label"}),
            "<text class=\"bar-label\" x=\"10.0\" y=\"20.0\" text-anchor=\"end\">a&lt;b</text>");
  EXPECT_EQ(svg_text_lines({"one", "two"}, {10, 20, 14, "start", ""}),
            "<text x=\"10.0\" y=\"20.0\"><tspan x=\"10.0\">one</tspan><tspan x=\"10.0\" dy=\"14.0\">two</tspan></text>");
}

}  // namespace
}  // namespace pipecheck
