// Whole-file reads and atomic writes: never through a link placed at the temporary's or the
// final name, never hanging on a FIFO.
#include "core/file_io.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/errors.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

class FileIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipecheck-fileio-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FileIoTest, WritesTheWholeContentReadableByOthers) {
  write_file_atomically(dir_ / "a.json", "{}\n");
  EXPECT_EQ(read_file(dir_ / "a.json"), "{}\n");
  struct stat info {};
  ASSERT_EQ(stat((dir_ / "a.json").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);  // no temporary left
}

TEST_F(FileIoTest, LinksAtTheTemporaryOrFinalNameAreNeverWrittenThrough) {
  const std::string user_data = "the user's own file\n";
  write_file_atomically(dir_ / "user-file", user_data);
  for (const char* name : {"report.json", "report.html", "report.md", "junit.xml", "pipecheck.prom",
                           "baseline.json", "summary.json", "watch.json"}) {
    const fs::path final_name = dir_ / name;
    fs::create_symlink(dir_ / "user-file", final_name.string() + ".tmp");
    fs::create_symlink(dir_ / "user-file", final_name);
    write_file_atomically(final_name, "pipecheck's\n");
    EXPECT_EQ(read_file(dir_ / "user-file"), user_data) << name;
    EXPECT_FALSE(fs::is_symlink(final_name)) << name << ": the link itself is replaced";
    EXPECT_EQ(read_file(final_name), "pipecheck's\n");
    EXPECT_TRUE(fs::is_symlink(final_name.string() + ".tmp")) << "left alone";
  }
}

TEST_F(FileIoTest, FifoOrDeviceIsRefusedNotWaitedOn) {
  ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  try {
    (void)read_file(dir_ / "fifo");
    FAIL() << "a FIFO was read";
  } catch (const RunError& error) {
    EXPECT_NE(std::string(error.what()).find("not a regular file"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)read_file("/dev/zero"), RunError);
  EXPECT_THROW((void)read_file(dir_ / "missing"), RunError);
}

TEST_F(FileIoTest, ErrorsNameThePathEscaped) {
  try {
    write_file_atomically(dir_ / "no-such-folder\x1b[2J" / "x.json", "{}");
    FAIL() << "no error";
  } catch (const RunError& error) {
    EXPECT_NE(std::string(error.what()).find("no-such-folder\\x1b[2J"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace pipecheck
