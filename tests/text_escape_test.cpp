// The escaping policy for names and outside text: valid UTF-8 passes, invalid bytes and control
// characters become \xHH, the mapping of names is injective and reversible.
#include "core/text_escape.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <set>

namespace pipecheck {
namespace {

TEST(EscapeName, ValidUtf8PassesAsItIs) {
  EXPECT_EQ(escape_name("train/caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\xb7.jpg"),
            "train/caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x93\xb7.jpg");
  EXPECT_EQ(escape_name("plain-name_01.jpg"), "plain-name_01.jpg");
}

TEST(EscapeName, InvalidBytesAndControlsBecomeVisibleEscapes) {
  EXPECT_EQ(escape_name("a\xff"), "a\\xff");
  EXPECT_EQ(escape_name("caf\xe9.jpg"), "caf\\xe9.jpg");            // Latin-1, not UTF-8
  EXPECT_EQ(escape_name("\x1b[31mred"), "\\x1b[31mred");             // a terminal escape
  EXPECT_EQ(escape_name(std::string("a\x01" "b\n\t", 5)), "a\\x01b\\x0a\\x09");
  EXPECT_EQ(escape_name(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(escape_name("del\x7f"), "del\\x7f");
  EXPECT_EQ(escape_name("csi\xc2\x9b"), "csi\\xc2\\x9b");              // C1 CSI, valid UTF-8
  EXPECT_EQ(escape_name("gpj.\xe2\x80\xae" "exe"), "gpj.\\xe2\\x80\\xaeexe");  // right-to-left override
  EXPECT_EQ(escape_name("\xc0\xaf"), "\\xc0\\xaf");                  // overlong '/'
  EXPECT_EQ(escape_name("\xed\xa0\x80"), "\\xed\\xa0\\x80");         // a UTF-16 surrogate
  EXPECT_EQ(escape_name("\xe6\x97"), "\\xe6\\x97");                  // cut short
  EXPECT_EQ(escape_name("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}

TEST(EscapeName, BackslashIsEscapedSoNamesNeverLookAlike) {
  // The byte 0xff and the four characters \xff are two different names.
  EXPECT_EQ(escape_name("\\xff"), "\\\\xff");
  EXPECT_NE(escape_name("\xff"), escape_name("\\xff"));
  EXPECT_EQ(escape_name("a\\b"), "a\\\\b");
}

TEST(EscapeName, RoundTripsEveryByteString) {
  std::mt19937 random(7);
  std::set<std::string> outputs;
  std::set<std::string> inputs;
  for (int n = 0; n < 20000; ++n) {
    std::string bytes(random() % 6, '\0');
    // Mostly the interesting bytes: backslash, 'x', hex digits, controls, UTF-8 leads.
    static const unsigned char kPool[] = {'\\', 'x', 'f', '0', 'a', 0x00, 0x1b, 0x7f, 0xc2, 0x9b,
                                          0xe2, 0x80, 0xae, 0xff, 0xe9, 0xc3, 0xa9, '/'};
    for (auto& c : bytes) c = static_cast<char>(kPool[random() % sizeof kPool]);
    const std::string escaped = escape_name(bytes);
    EXPECT_TRUE(is_printable_text(escaped)) << escaped;
    const auto back = unescape_name(escaped);
    ASSERT_TRUE(back.has_value()) << escaped;
    EXPECT_EQ(*back, bytes);
    if (inputs.insert(bytes).second) {
      EXPECT_TRUE(outputs.insert(escaped).second) << "two names escape alike: " << escaped;
    }
  }
}

TEST(UnescapeName, RefusesWhatEscapeNameNeverWrites) {
  EXPECT_FALSE(unescape_name("a\\").has_value());
  EXPECT_FALSE(unescape_name("a\\x4").has_value());
  EXPECT_FALSE(unescape_name("a\\n").has_value());
  EXPECT_EQ(unescape_name("a\\x41\\\\"), "aA\\");
}

TEST(PrintableText, EscapesOnlyWhatIsNotPrintableAndIsIdempotent) {
  const std::string raw = "read error in /data/caf\xe9\x1b[2J: EIO";
  const std::string once = printable_text(raw);
  EXPECT_EQ(once, "read error in /data/caf\\xe9\\x1b[2J: EIO");
  EXPECT_EQ(printable_text(once), once);  // never escaped twice
  EXPECT_EQ(printable_text(escape_name("a\\b\xff")), escape_name("a\\b\xff"));
  EXPECT_EQ(printable_text("two\nlines"), "two\\x0alines");
  EXPECT_EQ(printable_text("two\nlines\tok", true), "two\nlines\tok");
  EXPECT_TRUE(is_printable_text("caf\xc3\xa9"));
  EXPECT_FALSE(is_printable_text("caf\xe9"));
}

TEST(SanitizeJsonBytes, RawBytesInStringsParseAsEscapes) {
  // What Google Benchmark prints for a label holding a raw file name.
  const std::string raw = "{\n\t\"label\": \"path=/d/a\xff\x1b\x01\",\r\n \"n\": 1}";
  EXPECT_THROW(
      {
        const auto parsed = nlohmann::json::parse(raw);
        (void)parsed;
      },
      nlohmann::json::parse_error);
  const auto document = nlohmann::json::parse(sanitize_json_bytes(raw));
  EXPECT_EQ(document["label"], "path=/d/a\\xff\\x1b\\x01");
  EXPECT_EQ(document["n"], 1);
  const std::string clean = "{\"a\": \"caf\xc3\xa9 \\u001b\"}";
  EXPECT_EQ(sanitize_json_bytes(clean), clean);  // valid JSON is left as it is
}

TEST(Shortened, LongValuesAreCutWithTheirLength) {
  const std::string huge(309, '9');
  const std::string text = shortened(huge);
  EXPECT_LT(text.size(), 80u);
  EXPECT_NE(text.find("(309 characters)"), std::string::npos) << text;
  EXPECT_EQ(shortened("42"), "42");
  EXPECT_EQ(shortened("\x1b"), "\\x1b");
}

TEST(MessageLine, HugeNumbersAreCutAndTheLineStaysOne) {
  const std::string bound = "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368";
  const std::string line = message_line("--timeout: Value -5 not in range 0.000000 to " + bound + ".000000\n");
  EXPECT_EQ(line, "--timeout: Value -5 not in range 0.000000 to 1797693134862315708145...(309 digits).000000\\x0a");
  EXPECT_EQ(message_line("exit code 130 after 12345678901234567890 ms"), "exit code 130 after 12345678901234567890 ms");
}

}  // namespace
}  // namespace pipecheck
