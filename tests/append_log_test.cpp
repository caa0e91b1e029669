// The append-only record: the first line and every append are on disk as written, a missing
// folder is an error naming the path, and a last line without its newline is never parsed.
#include "core/append_log.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/file_io.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

TEST(AppendLog, WritesTheFirstLineThenEachAppend) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-appendlog-" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    AppendLog log(dir / "x.csv", "a,b");
    EXPECT_EQ(read_file(dir / "x.csv"), "a,b\n");
    log.append("1,2\n");
    log.append("3,4\n5,6\n");
    EXPECT_EQ(read_file(dir / "x.csv"), "a,b\n1,2\n3,4\n5,6\n");  // before close: nothing buffered
  }
  // A record is a file this process creates: an existing one is refused, never truncated.
  try {
    AppendLog again(dir / "x.csv", "c");
    ADD_FAILURE() << "an existing file was reused";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("x.csv: already exists"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(dir / "x.csv"), "a,b\n1,2\n3,4\n5,6\n");
  fs::remove_all(dir);
}

TEST(AppendLog, NeverWritesThroughALinkPlacedAtItsName) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-appendlog-link-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string user_data(1 << 20, 'u');
  write_file_atomically(dir / "user-file", user_data);
  for (const char* name : {"telemetry.csv", "watch.csv"}) {
    fs::create_symlink(dir / "user-file", dir / name);
    try {
      AppendLog log(dir / name, "header");
      ADD_FAILURE() << name << ": a link was followed";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("is a symbolic link"), std::string::npos) << e.what();
    }
    fs::create_hard_link(dir / "user-file", dir / (std::string(name) + ".hard"));
    EXPECT_THROW(AppendLog(dir / (std::string(name) + ".hard"), "header"), std::exception);
  }
  EXPECT_EQ(read_file(dir / "user-file"), user_data);  // the link's target untouched
  fs::remove_all(dir);
}

TEST(AppendLog, MissingFolderIsAnErrorNamingThePath) {
  try {
    AppendLog log("/nonexistent-pipecheck-folder/x.csv", "a");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-pipecheck-folder/x.csv"), std::string::npos) << e.what();
  }
}

TEST(AppendLog, ReadingBackKeepsWholeLinesOnly) {
  const WholeLines whole = split_whole_lines("h\n1,2\n3,");
  EXPECT_EQ(whole.lines, (std::vector<std::string>{"h", "1,2"}));
  EXPECT_EQ(whole.discarded_tail_bytes, 2u);
  EXPECT_EQ(split_whole_lines("h\n").discarded_tail_bytes, 0u);
  EXPECT_TRUE(split_whole_lines("").lines.empty());
}

TEST(AppendLog, CellsAndHeaderLine) {
  EXPECT_EQ(split_cells("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split_cells(""), (std::vector<std::string>{""}));
  EXPECT_EQ(split_cells("1|2", '|'), (std::vector<std::string>{"1", "2"}));
  const char* names[] = {"utc_time", "elapsed_s"};
  EXPECT_EQ(header_line(names), "utc_time,elapsed_s");
}

}  // namespace
}  // namespace pipecheck
