// The ceilings an earlier pipecheck run measured, and finding the latest run of this host.
#include <gtest/gtest.h>

#include <fstream>

#include "core/errors.hpp"
#include "tests/watch_test_support.hpp"
#include "watch/watch_baseline.hpp"

namespace pipecheck {
namespace {

TEST(WatchBaseline, BestFigurePerDeviceAndDirection) {
  const MeasuredCeilings c = load_measured_ceilings(watch_test::fixture("baseline_run"));
  EXPECT_EQ(c.host, "gpu-node");
  ASSERT_EQ(c.disk_mbs.count("sda"), 1u);
  // Seq direct beats cold buffered; the 1-thread pread baseline (250 MB/s, read from a cache
  // above the disk) is no ceiling.
  EXPECT_DOUBLE_EQ(c.disk_mbs.at("sda").value, 190);
  EXPECT_EQ(c.disk_mbs.at("sda").key, "storage/seq_read/sda");
  // What a reader through the page cache is held against: the cold buffered read.
  ASSERT_EQ(c.disk_cold_mbs.count("sda"), 1u);
  EXPECT_DOUBLE_EQ(c.disk_cold_mbs.at("sda").value, 170);
  EXPECT_EQ(c.disk_cold_mbs.at("sda").key, "storage/seq_read_buffered_cold/sda");
  EXPECT_DOUBLE_EQ(c.disk_iops.at("sda").value, 160);
  // Pageable copies are not the link's ceiling, even when they measured higher.
  EXPECT_DOUBLE_EQ(c.pcie_h2d_mbs.at("0000:17:00.0").value, 25100);
  EXPECT_DOUBLE_EQ(c.pcie_d2h_mbs.at("0000:17:00.0").value, 26300);
}

TEST(WatchBaseline, NotARunIsAUsageErrorNamingThePath) {
  const auto dir = watch_test::scratch("not-a-run");
  try {
    load_measured_ceilings(dir);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(WatchBaseline, LatestRunOfThisHost) {
  const auto root = watch_test::scratch("results");
  auto make = [&](const std::string& name) {
    std::filesystem::create_directories(root / name);
    std::ofstream(root / name / "report.json") << "{}";
  };
  // --results naming one run folder: that run.
  make("node1-20261101T000000Z");
  EXPECT_EQ(latest_run_folder(root / "node1-20261101T000000Z", "node1"), root / "node1-20261101T000000Z");
  make("node1-20261102T000000Z");
  make("node2-20261103T000000Z");
  make("watch-node1-20261104T000000Z");
  std::filesystem::create_directories(root / "node1-20261105T000000Z.incomplete");
  std::filesystem::last_write_time(root / "node1-20261101T000000Z/report.json",
                                   std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
  const auto latest = latest_run_folder(root, "node1");
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->filename(), "node1-20261102T000000Z");
  EXPECT_FALSE(latest_run_folder(root, "node3"));
  EXPECT_FALSE(latest_run_folder(root / "missing", "node1"));
  // Host "node1-2" is another machine, newer here; a second run in one second is node1's.
  make("node1-2-20261106T000000Z");
  EXPECT_EQ(latest_run_folder(root, "node1")->filename(), "node1-20261102T000000Z");
  make("node1-20261107T000000Z-2");
  EXPECT_EQ(latest_run_folder(root, "node1")->filename(), "node1-20261107T000000Z-2");
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace pipecheck
