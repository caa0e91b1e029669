// Terminal text layout: widths in characters on screen, wrapping that keeps every character.
#include "render/text_wrap.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(TextWrap, WidthCountsCharactersNotBytes) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("25 \xC2\xB0" "C"), 5u);     // degree sign: 2 bytes, 1 character
  EXPECT_EQ(display_width("\xE2\x80\xA6"), 1u);        // ellipsis: 3 bytes
  EXPECT_EQ(pad_right("\xC2\xB0", 3), "\xC2\xB0  ");
  EXPECT_EQ(pad_left("ab", 4), "  ab");
  EXPECT_EQ(pad_left("abcdef", 4), "abcdef");  // never cut
}

TEST(TextWrap, WrapsAtSpacesAndKeepsEveryWord) {
  const auto lines = wrap_words("full decode, baseline, 112 threads", 14);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "full decode,");
  EXPECT_EQ(lines[1], "baseline, 112");
  EXPECT_EQ(lines[2], "threads");
  EXPECT_EQ(wrap_words("", 10), std::vector<std::string>{""});
}

TEST(TextWrap, ALongWordIsSplitNeverDropped) {
  const auto lines = wrap_words("/datasets/imagenet/train-00001", 10);
  std::string joined;
  for (const auto& line : lines) {
    EXPECT_LE(display_width(line), 10u) << line;
    joined += line;
  }
  EXPECT_EQ(joined, "/datasets/imagenet/train-00001");
  // Multi-byte characters stay whole.
  for (const auto& line : wrap_words("\xC2\xB0\xC2\xB0\xC2\xB0\xC2\xB0\xC2\xB0", 2)) EXPECT_EQ(line.size() % 2, 0u);
}

TEST(TextWrap, PrefixesCountTowardsTheWidth) {
  const std::string text = wrap_text("one two three four five six", "  [1] ", "      ", 16);
  EXPECT_EQ(text, "  [1] one two\n      three four\n      five six\n");
}

}  // namespace
}  // namespace pipecheck
