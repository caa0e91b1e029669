// The one dataset walk (core/dataset_walk.hpp), as the JPEG corpus and the storage probe use it:
// `pipecheck-jpeg --images ds` followed a link ds/root -> / and read the whole filesystem (/proc
// included, 956 MB RSS), a `parent -> ..` link read the sibling folders, and the storage probe,
// which entered no folder link, disagreed with it. Every entry left out is named with why.
#include "core/dataset_walk.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/file_io.hpp"
#include "decode/jpeg_corpus.hpp"
#include "storage/storage_target.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

class DatasetWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    top_ = fs::temp_directory_path() / ("pipecheck-walk-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(top_);
    root_ = top_ / "ds";
    fs::create_directories(root_ / "a");
    fs::create_directories(top_ / "sibling");
    write_file_atomically(root_ / "a" / "one.jpg", "1");
    write_file_atomically(root_ / "two.jpg", "22");
    write_file_atomically(top_ / "sibling" / "private.jpg", "secret");
  }
  void TearDown() override { fs::remove_all(top_); }

  std::vector<std::string> file_names(const DatasetWalk& walk) const {
    std::vector<std::string> names;
    for (const auto& f : walk.files) names.push_back(f.path.lexically_relative(root_).string());
    return names;
  }
  std::string why_left_out(const DatasetWalk& walk, const std::string& name) const {
    for (const auto& entry : walk.left_out) {
      if (entry.path == root_ / name) return entry.why;
    }
    return "(not named)";
  }

  fs::path top_, root_;
};

TEST_F(DatasetWalkTest, LinksOutOfTheRootAreNeverFollowedAndAreNamed) {
  fs::create_directory_symlink("/", root_ / "root");
  fs::create_directory_symlink("..", root_ / "parent");
  fs::create_symlink("/dev/zero", root_ / "zero.jpg");
  fs::create_symlink(top_ / "sibling" / "private.jpg", root_ / "outside.jpg");
  const DatasetWalk walk = walk_dataset(root_);
  EXPECT_EQ(file_names(walk), (std::vector<std::string>{"a/one.jpg", "two.jpg"}));
  EXPECT_EQ(why_left_out(walk, "root"), "link outside the dataset (-> /)");
  EXPECT_EQ(why_left_out(walk, "parent").rfind("link outside the dataset (-> ", 0), 0u) << why_left_out(walk, "parent");
  EXPECT_EQ(why_left_out(walk, "zero.jpg"), "link outside the dataset (-> /dev/zero)");
  EXPECT_EQ(why_left_out(walk, "outside.jpg").rfind("link outside the dataset", 0), 0u);
}

TEST_F(DatasetWalkTest, DanglingLinksLoopsAndSpecialFilesAreNamed) {
  fs::create_symlink(root_ / "nowhere", root_ / "dangling.jpg");
  fs::create_symlink(root_ / "loop2", root_ / "loop1");
  fs::create_symlink(root_ / "loop1", root_ / "loop2");
  fs::create_directory_symlink(".", root_ / "a" / "self");
  ASSERT_EQ(mkfifo((root_ / "fifo.jpg").c_str(), 0600), 0);
  const DatasetWalk walk = walk_dataset(root_);
  EXPECT_EQ(file_names(walk), (std::vector<std::string>{"a/one.jpg", "two.jpg"}));
  EXPECT_EQ(why_left_out(walk, "dangling.jpg"), "dangling link");
  EXPECT_EQ(why_left_out(walk, "loop1"), "link loop");
  EXPECT_EQ(why_left_out(walk, "a/self"), "link to a folder already walked (a loop or a second path)");
  EXPECT_EQ(why_left_out(walk, "fifo.jpg"), "FIFO");
  EXPECT_NE(left_out_summary(walk, root_).find("entries left out"), std::string::npos);
}

TEST_F(DatasetWalkTest, LinksInsideTheRootAreReadOnce) {
  fs::create_directory_symlink(root_ / "a", root_ / "alias");
  fs::create_symlink(root_ / "two.jpg", root_ / "again.jpg");
  const DatasetWalk walk = walk_dataset(root_);
  EXPECT_EQ(walk.files.size(), 2u) << "each file once, whichever name reached it first";
}

// Both probes walk the same way: the storage dataset and the JPEG corpus list the same files and
// leave out the same links.
TEST_F(DatasetWalkTest, TheStorageProbeAndTheJpegCorpusAgree) {
  fs::create_directory_symlink("/", root_ / "root");
  fs::create_directory_symlink("..", root_ / "parent");
  std::vector<UnreadableDir> unreadable, left_out;
  const auto storage = list_dataset_files(root_.string(), &unreadable, &left_out);
  const JpegFileList jpeg = find_jpeg_files(root_);
  ASSERT_EQ(storage.size(), jpeg.files.size());
  for (std::size_t i = 0; i < storage.size(); ++i) EXPECT_EQ(fs::path(storage[i].path), jpeg.files[i]);
  EXPECT_EQ(storage.size(), 2u);
  EXPECT_EQ(left_out.size(), jpeg.left_out.size());
  EXPECT_EQ(left_out.size(), 2u);
}

}  // namespace
}  // namespace pipecheck
