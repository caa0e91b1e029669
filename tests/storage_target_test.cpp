// --path resolution of the storage probe: files, dataset trees (with a symlink loop), block
// devices, bad paths, and the device identity behind each.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <fstream>

#include "core/errors.hpp"
#include "as_nobody.hpp"
#include "storage/storage_target.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_file(const fs::path& path, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  out << std::string(bytes, 'x');
}

// The message names the path: the user sees which --path is wrong.
void expect_usage_error_naming(const std::string& path) {
  try {
    resolve_target(path, SysfsRoot("/"));
    FAIL() << "expected UsageError for " << path;
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
}

TEST(StorageTarget, FileWithItsSizeAndDisk) {
  const fs::path dir = fresh_dir("target-file");
  write_file(dir / "a.bin", 5000);
  const StorageTarget t = resolve_target((dir / "a.bin").string(), SysfsRoot("/"));
  EXPECT_EQ(t.kind, TargetKind::file);
  EXPECT_EQ(t.size_bytes, 5000u);
  struct stat info {};
  ASSERT_EQ(stat(dir.c_str(), &info), 0);
  const auto disk = disk_name_of(major(info.st_dev), minor(info.st_dev), SysfsRoot("/"));
  if (disk) {
    EXPECT_EQ(t.identity.device, *disk);
    EXPECT_NE(t.identity.disk_kind, "unknown");
    EXPECT_GE(t.identity.logical_block_size, 512);
  }
  fs::remove_all(dir);
}

TEST(StorageTarget, DatasetTreeWithSymlinkLoopTerminates) {
  const fs::path dir = fresh_dir("target-tree");
  fs::create_directories(dir / "train" / "cats");
  fs::create_directories(dir / "val");
  write_file(dir / "train" / "cats" / "1.jpg", 4097);
  write_file(dir / "train" / "2.jpg", 0);
  write_file(dir / "val" / "3.jpg", 100);
  fs::create_directory_symlink("..", dir / "train" / "up");  // a loop back to the root
  fs::create_symlink("self", dir / "self");                  // a link to itself
  fs::create_symlink("missing", dir / "dangling");
  fs::create_symlink("val/3.jpg", dir / "alias.jpg");        // a link to a file is read, once
  const auto files = list_dataset_files(dir.string());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path, (dir / "alias.jpg").string());
  EXPECT_EQ(files[0].size, 100u);
  EXPECT_EQ(files[1].path, (dir / "train" / "2.jpg").string());
  EXPECT_EQ(files[2].path, (dir / "train" / "cats" / "1.jpg").string());
  EXPECT_EQ(files[2].size, 4097u);
  const StorageTarget t = resolve_target(dir.string(), SysfsRoot("/"));
  EXPECT_EQ(t.kind, TargetKind::directory);
  EXPECT_EQ(t.size_bytes, 4097u + 100u);  // val/3.jpg is alias.jpg: read once
  // Every entry left out is named with why (core/dataset_walk.hpp).
  std::map<std::string, std::string> left_out;
  for (const auto& entry : t.left_out) left_out[fs::path(entry.path).lexically_relative(dir).string()] = entry.why;
  EXPECT_EQ(left_out["train/up"], "link to a folder already walked (a loop or a second path)");
  EXPECT_EQ(left_out["self"], "link loop");
  EXPECT_EQ(left_out["dangling"], "dangling link");
  EXPECT_EQ(left_out["val/3.jpg"], "the same file as alias.jpg");
  fs::remove_all(dir);
}

TEST(StorageTarget, BadPathsAreUsageErrorsNamingThePath) {
  const fs::path dir = fresh_dir("target-bad");
  expect_usage_error_naming((dir / "no-such-file").string());
  fs::create_directories(dir / "empty" / "sub");
  expect_usage_error_naming((dir / "empty").string());  // a directory without files
  fs::create_directories(dir / "zeros");
  write_file(dir / "zeros" / "a.jpg", 0);
  expect_usage_error_naming((dir / "zeros").string());  // only empty files: nothing to read
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
  expect_usage_error_naming((dir / "fifo").string());   // neither file, dir nor block device
  expect_usage_error_naming("/dev/null");               // a character device
  fs::remove_all(dir);
}

// The storage probe used to skip an unreadable sub-folder silently; the JPEG probe named it.
TEST(StorageTarget, UnreadableSubFolderIsNamedNotSkipped) {
  const fs::path dir = fresh_dir("target-locked");
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  write_file(dir / "a.bin", 10);
  fs::create_directories(dir / "locked");
  write_file(dir / "locked" / "b.bin", 10);
  fs::permissions(dir / "locked", fs::perms::owner_all);  // root's, closed to others
  const auto seen = test::as_nobody([&] {
    std::vector<UnreadableDir> unreadable;
    const auto files = list_dataset_files(dir.string(), &unreadable);
    std::string text = "files=" + std::to_string(files.size());
    for (const auto& d : unreadable) text += " unreadable=" + d.path + ": " + d.why;
    return text;
  });
  fs::remove_all(dir);
  ASSERT_TRUE(seen.has_value()) << "could not run as nobody";
  EXPECT_EQ(*seen, "files=1 unreadable=" + (dir / "locked").string() + ": Permission denied");
}

TEST(StorageTarget, UnreadableFileIsAUsageError) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads a chmod 000 file anyway";
  const fs::path dir = fresh_dir("target-unreadable");
  write_file(dir / "secret", 10);
  fs::permissions(dir / "secret", fs::perms::none);
  expect_usage_error_naming((dir / "secret").string());
  fs::remove_all(dir);
}

TEST(StorageTarget, BlockDeviceOfTheRootFilesystem) {
  struct stat info {};
  ASSERT_EQ(stat("/", &info), 0);
  const auto disk = disk_name_of(major(info.st_dev), minor(info.st_dev), SysfsRoot("/"));
  if (!disk || !fs::exists("/dev/" + *disk)) GTEST_SKIP() << "root filesystem is not on a block device";
  const std::string device = "/dev/" + *disk;
  const DeviceIdentity identity = identify_device(device, SysfsRoot("/"));
  EXPECT_EQ(identity.device, *disk);
  EXPECT_NE(identity.disk_kind, "unknown");
  StorageTarget t;
  try {
    t = resolve_target(device, SysfsRoot("/"));
  } catch (const UsageError& error) {
    // Refused (a sandbox can refuse even root): the message must still name the device.
    EXPECT_NE(std::string(error.what()).find(device), std::string::npos) << error.what();
    return;
  }
  EXPECT_EQ(t.kind, TargetKind::block_device);
  EXPECT_GT(t.size_bytes, 0u);
  EXPECT_EQ(t.identity.device, *disk);
}

TEST(StorageTarget, PartitionResolvesToItsDiskInARecordedSysfs) {
  const fs::path root = fresh_dir("target-sysfs");
  const fs::path disk = root / "sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/block/sda";
  fs::create_directories(disk / "sda1");
  std::ofstream(disk / "sda1" / "partition") << "1\n";
  fs::create_directories(root / "sys/dev/block");
  fs::create_directory_symlink(disk / "sda1", root / "sys/dev/block/8:1");
  fs::create_directory_symlink(disk, root / "sys/dev/block/8:0");
  const SysfsRoot sys(root);
  EXPECT_EQ(disk_name_of(8, 1, sys), "sda");
  EXPECT_EQ(disk_name_of(8, 0, sys), "sda");
  EXPECT_EQ(disk_name_of(8, 2, sys), std::nullopt);
  fs::remove_all(root);
}

TEST(StorageTarget, NetworkFilesystemsByMagic) {
  EXPECT_EQ(network_fs_name(0x6969), "nfs");
  EXPECT_EQ(network_fs_name(0xFF534D42), "cifs");
  EXPECT_EQ(network_fs_name(0x0BD00BD0), "lustre");
  EXPECT_EQ(network_fs_name(0x65735546), "fuse");
  EXPECT_EQ(network_fs_name(0xEF53), std::nullopt);  // ext4
}

}  // namespace
}  // namespace pipecheck
