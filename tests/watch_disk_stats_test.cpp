// iostat's figures from /proc/diskstats: the parser, the formulas on known counters, and which
// entries are whole disks, on a fake sysfs tree.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/watch_test_support.hpp"
#include "watch/disk_stats.hpp"

namespace pipecheck {
namespace {

TEST(WatchDiskStats, ParsesDiskstatsLines) {
  const auto disks = parse_diskstats(
      " 254       0 vda 4079704 79528 720561152 22250582 94133 55463 29230840 191180 0 494392 22471797 37744 35 "
      "25550264 25647 9414 4387\n   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0\n 8 1 sda1 1 2 3\n");
  ASSERT_EQ(disks.count("vda"), 1u);
  const DiskCounters& vda = disks.at("vda");
  EXPECT_EQ(vda.major, 254);
  EXPECT_EQ(vda.reads, 4079704u);
  EXPECT_EQ(vda.read_sectors, 720561152u);
  EXPECT_EQ(vda.read_ms, 22250582u);
  EXPECT_EQ(vda.writes, 94133u);
  EXPECT_EQ(vda.io_ms, 494392u);
  EXPECT_EQ(vda.weighted_ms, 22471797u);
  EXPECT_EQ(disks.count("loop0"), 1u) << "listed; is_whole_disk leaves it out";
  EXPECT_EQ(disks.count("sda1"), 0u) << "old 7-field partition line";
}

TEST(WatchDiskStats, IostatFormulas) {
  DiskCounters before{8, 0, "sda", 1000, 100000, 5000, 10, 800, 2000, 9000};
  DiskCounters after = before;
  after.reads += 2000;          // 1000 r/s over 2 s
  after.read_sectors += 800000; // 409.6 MB over 2 s
  after.read_ms += 3000;        // 1.5 ms per read
  after.writes += 20;
  after.write_sectors += 2048;
  after.io_ms += 1900;          // 95% of 2000 ms
  after.weighted_ms += 6000;    // 3 in flight on average
  const DiskWatch d = disk_rates(before, after, 2.0);
  EXPECT_EQ(d.name, "sda");
  EXPECT_DOUBLE_EQ(d.read_iops, 1000);
  EXPECT_NEAR(d.read_mbs, 204.8, 1e-9);
  EXPECT_DOUBLE_EQ(d.write_iops, 10);
  EXPECT_NEAR(d.write_mbs, 0.524288, 1e-9);
  EXPECT_DOUBLE_EQ(d.util_pct, 95);
  EXPECT_DOUBLE_EQ(d.r_await_ms, 1.5);
  EXPECT_DOUBLE_EQ(d.aqu_sz, 3);
}

TEST(WatchDiskStats, CounterWrapIsNotNegative) {
  DiskCounters before{8, 0, "sda", 10, 10, 10, 0, 0, 10, 10};
  DiskCounters after{8, 0, "sda", 5, 5, 5, 0, 0, 5, 5};
  const DiskWatch d = disk_rates(before, after, 1.0);
  EXPECT_EQ(d.read_iops, 0);
  EXPECT_EQ(d.util_pct, 0);
}

TEST(WatchDiskStats, MillisecondFieldsWrapAt32Bits) {
  // The kernel prints io_ticks, read ticks and time_in_queue as 32-bit unsigned.
  const std::uint64_t near_top = (std::uint64_t{1} << 32) - 500;
  DiskCounters before{8, 0, "sda", 1000, 100000, near_top, 10, 800, near_top, near_top};
  DiskCounters after = before;
  after.reads += 100;
  after.read_ms = 500;      // 1000 ms across the wrap: 10 ms a read
  after.io_ms = 300;        // 800 ms of 1000
  after.weighted_ms = 1500; // 2000 ms: 2 in flight
  const DiskWatch d = disk_rates(before, after, 1.0);
  EXPECT_DOUBLE_EQ(d.r_await_ms, 10);
  EXPECT_DOUBLE_EQ(d.util_pct, 80);
  EXPECT_DOUBLE_EQ(d.aqu_sz, 2);
}

TEST(WatchDiskStats, PartitionsAndLoopDevicesAreNotWholeDisks) {
  const auto root = watch_test::scratch("disks");
  std::filesystem::create_directories(root / "sys/class/block/sda1");
  std::ofstream(root / "sys/class/block/sda1/partition") << "1\n";
  std::filesystem::create_directories(root / "sys/class/block/sda");
  const SysfsRoot sys(root);
  EXPECT_TRUE(is_whole_disk(sys, "sda"));
  EXPECT_FALSE(is_whole_disk(sys, "sda1"));
  EXPECT_FALSE(is_whole_disk(sys, "loop3"));
  EXPECT_FALSE(is_whole_disk(sys, "zram0"));
  std::filesystem::remove_all(root);
}

TEST(WatchDiskStats, SamplerFollowsTheNamedDevices) {
  const auto root = watch_test::scratch("diskstats");
  std::filesystem::create_directories(root / "proc");
  auto write = [&](int reads) {
    std::ofstream(root / "proc/diskstats") << " 8 0 sda " << reads << " 0 " << reads * 8
                                           << " 10 0 0 0 0 0 500 600 0 0 0 0\n 8 16 sdb 5 0 40 1 0 0 0 0 0 1 1\n";
  };
  DiskStatsSampler sampler{SysfsRoot(root)};
  const auto t0 = std::chrono::steady_clock::now();
  write(100);
  EXPECT_TRUE(sampler.sample(t0, {"sda"}).empty()) << "the first reading only primes";
  write(300);
  const auto disks = sampler.sample(t0 + std::chrono::seconds(1), {"sda"});
  ASSERT_EQ(disks.size(), 1u);
  EXPECT_TRUE(disks[0].job);
  EXPECT_DOUBLE_EQ(disks[0].read_iops, 200);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace pipecheck
