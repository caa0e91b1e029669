// Which disks a job reads from: mountinfo and maps parsers, and a real process holding a file
// open on this machine's disk.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <set>

#include "tests/watch_test_support.hpp"
#include "watch/job_devices.hpp"

namespace pipecheck {
namespace {

TEST(WatchJobDevices, ParsesMountinfoSources) {
  const auto mounts = parse_mountinfo(
      "36 35 0:45 / /data rw,relatime shared:1 - btrfs /dev/sda2 rw,space_cache\n"
      "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
      "40 35 259:3 / /scratch rw - xfs /dev/nvme0n1p3 rw\n");
  ASSERT_EQ(mounts.count("0:45"), 1u);
  EXPECT_EQ(mounts.at("0:45").fstype, "btrfs");
  EXPECT_EQ(mounts.at("0:45").source, "/dev/sda2");
  EXPECT_EQ(mounts.at("259:3").source, "/dev/nvme0n1p3");
}

TEST(WatchJobDevices, MapsCountDataFilesNotCode) {
  const auto devices = parse_maps_devices(
      "5600-5700 r--p 00000000 fd:01 100 /usr/bin/python3.11\n"
      "5700-5800 r-xp 00001000 fd:01 100 /usr/bin/python3.11\n"
      "7f00-7f10 r--p 00000000 fd:01 200 /opt/env/lib/libtorch.so\n"
      "7f10-7f20 r-xp 00010000 fd:01 200 /opt/env/lib/libtorch.so\n"
      "7f20-7f30 r--s 00000000 103:02 300 /data/train-00001.arrow\n"
      "7f30-7f40 rw-s 00000000 00:05 400 /dev/nvidia0\n"
      "7f40-7f50 rw-p 00000000 00:00 0 \n"
      "7ffc-7ffd rw-p 00000000 00:00 0 [stack]\n");
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(*devices.begin(), "259:2") << "0x103 = 259";
}

TEST(WatchJobDevices, FindsTheDiskBehindAnOpenFile) {
  const auto dir = watch_test::scratch("devices");
  const auto file = dir / "data.bin";
  std::ofstream(file) << std::string(4096, 'x');
  struct stat info {};
  ASSERT_EQ(stat(file.c_str(), &info), 0);
  const auto expected = block_device_of(SysfsRoot("/"), major(info.st_dev), minor(info.st_dev));
  if (!expected) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "the temp folder is on no block device here (tmpfs or overlay)";
  }
  watch_test::Child child("exec 3<'" + file.string() + "'; exec sleep 30");
  JobDeviceFinder finder{SysfsRoot("/")};
  for (int attempt = 0; attempt < 100 && finder.devices().empty(); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    finder.scan({child.pid()}, true);
  }
  ASSERT_EQ(finder.devices(), std::vector<std::string>{*expected});
  EXPECT_NE(finder.evidence(*expected).find("data.bin"), std::string::npos) << finder.evidence(*expected);
  std::filesystem::remove_all(dir);
}

TEST(WatchJobDevices, WriteOnlyFilesAreNotReadFrom) {
  const auto dir = watch_test::scratch("devices-w");
  const auto file = dir / "log.txt";
  watch_test::Child child("exec 3>'" + file.string() + "'; exec sleep 30");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  JobDeviceFinder finder{SysfsRoot("/")};
  finder.scan({child.pid()}, false);
  EXPECT_TRUE(finder.devices().empty());
  std::filesystem::remove_all(dir);
}

// A loader's workers hand batches to the training process through /dev/shm (PyTorch's tensors,
// multiprocessing's buffers): shared memory, which no note may call files the job reads on tmpfs.
TEST(WatchJobDevices, SharedMemoryIsNoFileOnTmpfs) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm here";
  const std::filesystem::path file = "/dev/shm/pipecheck-watch-shm-" + std::to_string(getpid());
  std::ofstream(file) << std::string(4096, 'x');
  // Open and unlinked, as PyTorch's shared tensors are: "/dev/shm/... (deleted)".
  watch_test::Child worker("exec 3<'" + file.string() + "'; rm -f '" + file.string() + "'; exec sleep 30");
  JobDeviceFinder finder{SysfsRoot("/")};
  for (int attempt = 0; attempt < 100 && finder.shared_memory_pids().empty(); ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    finder.scan({worker.pid()}, true);
  }
  std::filesystem::remove(file);
  EXPECT_EQ(finder.shared_memory_pids(), std::set<int>{worker.pid()});
  EXPECT_EQ(finder.shared_memory_files(), 1u);
  EXPECT_TRUE(finder.unbacked().empty()) << *finder.unbacked().begin();
  EXPECT_TRUE(finder.devices().empty());
}

}  // namespace
}  // namespace pipecheck
