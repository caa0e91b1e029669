// JSON as pipecheck writes it: a path or process name with bytes that are not UTF-8 must not
// cost the whole document, and reads back as the escapes of core/text_escape.hpp.
#include "core/json_text.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(JsonText, InvalidUtf8IsEscapedNotReplacedNorThrown) {
  nlohmann::json document;
  document["command"] = std::string("train.py \xff");
  document["comm"] = std::string("a\xe6\x97\xa5\xe6\x9c");  // a name cut inside a character
  document["caf\xe9"] = 1;                                   // a key too
  document["ok"] = "plain \xc3\xa9";
  std::string text;
  ASSERT_NO_THROW(text = json_text(document));
  const auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["command"], "train.py \\xff");  // not U+FFFD: two names never look alike
  EXPECT_EQ(back["comm"], "a\xe6\x97\xa5\\xe6\\x9c");
  EXPECT_EQ(back["caf\\xe9"], 1);
  EXPECT_EQ(back["ok"], "plain \xc3\xa9");
  EXPECT_EQ(text.find("\xef\xbf\xbd"), std::string::npos) << text;
}

TEST(JsonText, ValidDocumentIsWrittenAsItIs) {
  const nlohmann::json document = {{"a", "x\\y"}, {"b", "\x1b[31m"}};
  EXPECT_EQ(nlohmann::json::parse(json_text(document)), document);
}

}  // namespace
}  // namespace pipecheck
