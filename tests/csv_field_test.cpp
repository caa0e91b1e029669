// RFC 4180 fields: quoted only when needed, quotes doubled, read back exactly.
#include "core/csv_field.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace pipecheck {
namespace {

TEST(CsvField, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_field("python3"), "python3");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a|b"), "a|b");
  EXPECT_EQ(csv_field("my,pr\"oc"), "\"my,pr\"\"oc\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field(" x"), "\" x\"");
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
}

TEST(CsvField, ParsesWhatItWrites) {
  const std::vector<std::string> fields = {"1", "", "my,pr\"oc", "\"", " edge ", "a|b", ","};
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    line += csv_field(fields[i]);  // appended: GCC 12 warns falsely (-Wrestrict) on (i ? "," : "") + ...
  }
  EXPECT_EQ(parse_csv_line(line), fields);
  EXPECT_EQ(parse_csv_line(""), std::vector<std::string>{""});
  EXPECT_EQ(parse_csv_line("a,,b,"), (std::vector<std::string>{"a", "", "b", ""}));
}

TEST(CsvField, RefusesBrokenQuoting) {
  EXPECT_THROW(parse_csv_line("\"open"), std::invalid_argument);
  EXPECT_THROW(parse_csv_line("\"closed\"x,y"), std::invalid_argument);
}

}  // namespace
}  // namespace pipecheck
