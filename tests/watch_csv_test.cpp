// watch.csv: the schema, a round trip of every source, a line cut by a kill, bad input.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_io.hpp"
#include "tests/tool_runner.hpp"
#include "tests/watch_test_support.hpp"
#include "watch/watch_csv.hpp"

namespace pipecheck {
namespace {

WatchSample full_sample() {
  WatchSample s;
  s.utc_time = "2026-11-30T09:00:01.250Z";
  s.elapsed_s = 1.25;
  GpuWatch g;
  g.index = 1;
  g.bus_id = "0000:2a:00.0";
  g.job = false;
  g.util_pct = 97;
  g.mem_util_pct = 41;
  g.sm_clock_mhz = 1980;
  g.power_w = 612.5;
  g.power_limit_w = 700;
  g.mem_used_mib = 61234;
  g.pcie_rx_mbs = 1234.5;
  g.pcie_tx_mbs = 12.5;
  g.throttle_mask = 0x4 | 0x40;
  s.gpus.push_back(g);
  s.job = JobWatch{3, 41, 123.4, 56.78, 2, 2, 99.5, 100, "python:4242", 180.25, 12.5, 64.5, 61.5, "python:4251"};
  s.procs.push_back(ProcWatch{4242, "python", 99.5, 50.5, 30, 1, 99.5, 100, "python:4242", 0.5, 2.5, 3.0, {}, 0});
  s.procs.push_back(
      ProcWatch{4250, "pt_data_worker", 23.9, 6.28, 11, 1, 20.0, 55, "pt_data_worker:4250", std::nullopt, 10, std::nullopt, {}, 0});
  s.host.cpu_pct = 54.3;
  s.host.iowait_pct = 2.1;
  s.host.core_pct = {100, 9};
  s.disks.push_back(DiskWatch{"nvme0n1", true, 180.25, 1400, 0.5, 3, 96.5, 0.45, 1.25});
  return s;
}

TEST(WatchCsv, HeaderIsTheSchema) {
  EXPECT_EQ(watch_csv_header().rfind("utc_time,elapsed_s,source,id,name,job,util_pct,", 0), 0u);
  EXPECT_NE(watch_csv_header().find(",disk_util_pct,r_await_ms,aqu_sz,iowait_pct,core_util_pct"), std::string::npos);
}

TEST(WatchCsv, RoundTripsEverySource) {
  const WatchSample s = full_sample();
  const std::string text = watch_csv_header() + "\n" + format_watch_sample(s) + format_watch_sample(s);
  const ParsedWatchCsv parsed = parse_watch_csv(text);
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  ASSERT_EQ(parsed.samples.size(), 1u) << "equal time stamps are one sample";
  const WatchSample& r = parsed.samples[0];
  EXPECT_EQ(r.utc_time, s.utc_time);
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_EQ(r.gpus[0].bus_id, "0000:2a:00.0");
  EXPECT_FALSE(r.gpus[0].job);
  EXPECT_EQ(r.gpus[0].throttle_mask, 0x44u);
  EXPECT_DOUBLE_EQ(*r.gpus[0].pcie_rx_mbs, 1234.5);
  EXPECT_EQ(r.job.processes, 3);
  EXPECT_EQ(r.job.top_thread, "python:4242");
  EXPECT_DOUBLE_EQ(*r.job.read_mbs, 180.25);
  ASSERT_EQ(r.procs.size(), 4u);
  EXPECT_EQ(r.procs[1].comm, "pt_data_worker");
  EXPECT_FALSE(r.procs[1].read_mbs);
  EXPECT_EQ(r.host.core_pct, (std::vector<double>{100, 9}));
  ASSERT_EQ(r.disks.size(), 2u);
  EXPECT_TRUE(r.disks[0].job);
  EXPECT_DOUBLE_EQ(r.disks[0].util_pct, 96.5);
  EXPECT_DOUBLE_EQ(r.disks[0].aqu_sz, 1.25);
  EXPECT_DOUBLE_EQ(r.job.run_wait_pct, 12.5);
  EXPECT_DOUBLE_EQ(*r.job.io_blocked_pct, 64.5);
  EXPECT_DOUBLE_EQ(r.job.top_blocked_pct, 61.5);
  EXPECT_EQ(r.job.top_blocked_thread, "python:4251");
  EXPECT_DOUBLE_EQ(*r.procs[0].io_blocked_pct, 3.0);
  EXPECT_FALSE(r.procs[1].io_blocked_pct);
  EXPECT_DOUBLE_EQ(r.procs[1].run_wait_pct, 10);
}

// A watch.csv written before the run-queue and blocked-on-I/O columns: read, those absent.
TEST(WatchCsv, ReadsAFileOfTheOlderColumns) {
  const std::string header = watch_csv_header();
  const std::string older_header = header.substr(0, header.find(",run_wait_pct"));
  std::string rows;
  for (const std::string& line : {std::string("2026-11-30T09:00:01.000Z,1.000,job,,,,,,,,,,,,,101.0,1.01,1,9,1,1,97.0,"
                                             "100.0,python:4242,0.00,,,,,,,,"),
                                 std::string("2026-11-30T09:00:01.000Z,1.000,host,,,,,,,,,,,,,7.0,,,,,,,,,,,,,,,,"
                                             "0.5,100|3")}) {
    rows += line + "\n";
  }
  const ParsedWatchCsv parsed = parse_watch_csv(older_header + "\n" + rows);
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  ASSERT_EQ(parsed.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(parsed.samples[0].job.cpu_pct, 101.0);
  EXPECT_FALSE(parsed.samples[0].job.io_blocked_pct);
  EXPECT_DOUBLE_EQ(parsed.samples[0].job.run_wait_pct, 0);
  // A row of the newer width under the older header is a bad row.
  const ParsedWatchCsv mixed = parse_watch_csv(older_header + "\n" + format_watch_sample(full_sample()));
  EXPECT_FALSE(mixed.errors.empty());
}

// A process named `my,pr"oc` (and a thread of it) is quoted as RFC 4180 says, read back as itself,
// and read the same by Python's csv module, a reader that follows the RFC.
TEST(WatchCsv, NamesWithCommasAndQuotesAreQuotedNotRewritten) {
  WatchSample s = full_sample();
  s.procs[1].comm = "my,pr\"oc";
  s.procs[1].top_thread = "my,pr\"oc:4250";
  s.procs[0].comm = " lead";  // an edge space is kept too
  const std::string rows = format_watch_sample(s);
  EXPECT_NE(rows.find(",4250,\"my,pr\"\"oc\","), std::string::npos) << rows;
  EXPECT_NE(rows.find(",\"my,pr\"\"oc:4250\","), std::string::npos) << rows;
  const ParsedWatchCsv parsed = parse_watch_csv(watch_csv_header() + "\n" + rows);
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  ASSERT_EQ(parsed.samples.at(0).procs.size(), 2u);
  EXPECT_EQ(parsed.samples[0].procs[1].comm, "my,pr\"oc");
  EXPECT_EQ(parsed.samples[0].procs[1].top_thread, "my,pr\"oc:4250");
  EXPECT_EQ(parsed.samples[0].procs[0].comm, " lead");

  // And as its consumers read it: Python's csv module (a machine without Python skips this half).
  if (!testing::python_has("csv")) GTEST_SKIP() << "no /usr/bin/python3 to read watch.csv with its csv module";
  const auto folder = testing::fresh_temp_folder("watchcsv");
  write_file_atomically(folder / "watch.csv", watch_csv_header() + "\n" + rows);
  const auto python = testing::run_tool(
      "/usr/bin/python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1], newline=\"\")));"
      " w=len(r[0]); assert all(len(x)==w for x in r), [len(x) for x in r];"
      " print(\"|\".join(x[4] for x in r if x[2]==\"proc\"))' " + (folder / "watch.csv").string());
  EXPECT_EQ(python.status, 0) << python.output;
  EXPECT_EQ(python.output, " lead|my,pr\"oc\n");
  std::filesystem::remove_all(folder);
}

TEST(WatchCsv, AnUnclosedQuoteIsABadLine) {
  const std::string bad = watch_csv_header() + "\n" + "2026-11-30T09:00:01Z,1,proc,7,\"my,proc" + "\n";
  const ParsedWatchCsv parsed = parse_watch_csv(bad);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0], "line 2: a quoted field is not closed");
}

TEST(WatchCsv, EmptyGpuColumnsWithoutNvml) {
  WatchSample s = full_sample();
  s.gpus.clear();
  GpuWatch bare;
  bare.index = 0;
  s.gpus.push_back(bare);
  const ParsedWatchCsv parsed = parse_watch_csv(watch_csv_header() + "\n" + format_watch_sample(s));
  ASSERT_TRUE(parsed.errors.empty());
  EXPECT_FALSE(parsed.samples[0].gpus[0].util_pct);
  EXPECT_FALSE(parsed.samples[0].gpus[0].throttle_mask);
}

TEST(WatchCsv, DropsALineCutByAKill) {
  std::string text = watch_csv_header() + "\n" + format_watch_sample(full_sample());
  text += "2026-11-30T09:00:02.250Z,2.250,job,,,,";
  const ParsedWatchCsv parsed = parse_watch_csv(text);
  EXPECT_EQ(parsed.samples.size(), 1u);
  EXPECT_GT(parsed.discarded_tail_bytes, 0u);
  EXPECT_TRUE(parsed.errors.empty());
}

TEST(WatchCsv, NamesBadLinesAndRefusesAnotherHeader) {
  const ParsedWatchCsv wrong = parse_watch_csv("utc_time,elapsed_s,source\n1,2,3\n");
  ASSERT_EQ(wrong.errors.size(), 1u);
  EXPECT_EQ(wrong.errors[0], "line 1: not the watch.csv header");
  std::string text = watch_csv_header() + "\n" + format_watch_sample(full_sample());
  std::string bad = format_watch_sample(full_sample());
  bad = bad.substr(0, bad.find('\n') + 1);  // the gpu row
  bad.replace(bad.find(",97,"), 4, ",9x,");
  const ParsedWatchCsv parsed = parse_watch_csv(text + bad + "a,b\n");
  ASSERT_EQ(parsed.errors.size(), 2u);
  EXPECT_NE(parsed.errors[0].find("bad util_pct '9x'"), std::string::npos) << parsed.errors[0];
  EXPECT_NE(parsed.errors[1].find("2 cells"), std::string::npos) << parsed.errors[1];
}

TEST(WatchCsv, WriterAppendsWholeSamples) {
  const auto dir = watch_test::scratch("csv");
  {
    WatchCsvWriter writer(dir / "watch.csv");
    WatchSample s = full_sample();
    writer.append(s);
    s.elapsed_s = 2.25;
    s.utc_time = "2026-11-30T09:00:02.250Z";
    writer.append(s);
    // Readable while the writer is open: nothing waits in a user-space buffer.
    EXPECT_EQ(parse_watch_csv(read_file(dir / "watch.csv")).samples.size(), 2u);
  }
  std::filesystem::remove_all(dir);
}

TEST(WatchCsv, WriterNamesAPathItCannotCreate) {
  try {
    WatchCsvWriter writer("/nonexistent-folder/watch.csv");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder/watch.csv"), std::string::npos);
  }
}

}  // namespace
}  // namespace pipecheck
