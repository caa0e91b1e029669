// JSON as pipecheck writes it: a path or process name with bytes that are not UTF-8 must not
// cost the whole document.
#include "core/json_text.hpp"

#include <gtest/gtest.h>

namespace pipecheck {
namespace {

TEST(JsonText, InvalidUtf8IsReplacedNotThrown) {
  nlohmann::json document;
  document["command"] = std::string("train.py \xff");
  document["comm"] = std::string("a\xe6\x97\xa5\xe6\x9c");  // a name cut inside a character
  document["ok"] = "plain";
  std::string text;
  ASSERT_NO_THROW(text = json_text(document));
  EXPECT_NE(text.find("\"train.py \xef\xbf\xbd\""), std::string::npos) << text;  // U+FFFD
  EXPECT_NE(text.find("\"ok\": \"plain\""), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text)["ok"], "plain");
}

}  // namespace
}  // namespace pipecheck
