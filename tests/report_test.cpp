// Attaching ceilings: the stage finds its ceiling in the inventory; % of ceiling only when the
// units agree; unknown stays unknown with its reason.
#include "report/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "judge/judge.hpp"
#include "judge/profile.hpp"

namespace pipecheck {
namespace {

Report report_with(const std::string& stage, double median_gbps) {
  Measurement m;
  m.key = stage + "/memcpy/threads:64";
  m.stage = stage;
  m.unit = "GB/s";
  m.stats = {median_gbps, median_gbps, median_gbps, 1};
  Report report;
  report.probes.push_back({"probe", stage, ProbeStatus::ok, "", 1, {m}, {}});
  return report;
}

Inventory inventory_with_channels(std::optional<int> channels) {
  Inventory inv;
  inv.memory.memory_channels = channels;
  for (int i = 0; i < 12; ++i) inv.memory.dimms.push_back({"DIMM", 64ull << 30, 4800, 64, "DDR5"});
  return inv;
}

// Seconds to attach ceilings and judge a report of `n` decode, hostmem and comm measurements,
// the best of three (a loaded machine only ever adds time).
double seconds_to_judge(int n) {
  Report report;
  ProbeOutcome decode{"pipecheck-jpeg", "decode", ProbeStatus::ok, "", 1, {}, {}};
  ProbeOutcome hostmem{"pipecheck-hostmem", "hostmem", ProbeStatus::ok, "", 1, {}, {}};
  ProbeOutcome comm{"pipecheck-nccl", "comm", ProbeStatus::ok, "", 1, {}, {}};
  for (int i = 0; i < n / 3; ++i) {
    const std::string set = "set" + std::to_string(i / 2);
    Measurement d;
    d.key = "decode/full/" + set + "/threads:" + std::to_string(i % 2 + 1);
    d.stage = "decode";
    d.unit = "images/s";
    d.stats = {100, 99, 101, 5};
    d.params = {{"op", "full"}, {"set", set}, {"threads", std::to_string(i % 2 + 1)}};
    decode.measurements.push_back(d);
    Measurement h = d;
    h.key = "hostmem/memcpy/" + set + "/threads:" + std::to_string(i % 2 + 1);
    h.stage = "hostmem";
    h.unit = "GB/s";
    h.params = {{"op", "memcpy" + std::to_string(i)}, {"threads", std::to_string(i % 2 + 1)}};
    hostmem.measurements.push_back(h);
    Measurement c = h;
    c.key = "comm/all_reduce/" + std::to_string(i);
    c.stage = "comm";
    c.params = {{"collective", "all_reduce"}, {"dtype", "bf16"}, {"ranks", "8"}, {"bytes", std::to_string(i)}};
    comm.measurements.push_back(c);
  }
  report.probes = {decode, hostmem, comm};
  double best = 1e9;
  for (int round = 0; round < 3; ++round) {
    Report copy = report;
    const auto start = std::chrono::steady_clock::now();
    attach_ceilings(copy, Inventory{});
    const Judged judged = judge(copy, Inventory{}, default_profile(), std::nullopt);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    EXPECT_FALSE(judged.judgements.empty());
  }
  return best;
}

// A 50 MB report.json took over a minute to report: every measurement searched its probe's
// others (decode's 1-thread reference, hostmem's most threads, comm's largest size). Four times
// the measurements must take about four times as long, not sixteen.
TEST(AttachCeilings, ALargeReportIsJudgedInLinearTime) {
  const double small = seconds_to_judge(3000);
  const double large = seconds_to_judge(12000);
  EXPECT_LT(large, 8 * std::max(small, 0.01)) << "3000 measurements: " << small << " s, 12000: " << large << " s";
}

TEST(AttachCeilings, HostMemoryAgainstDram) {
  Report report = report_with("hostmem", 307.2);
  attach_ceilings(report, inventory_with_channels(12));
  const Measurement& m = report.probes[0].measurements[0];
  ASSERT_TRUE(m.ceiling.ceiling.has_value());
  EXPECT_NEAR(m.ceiling.ceiling->value, 460.8, 0.01);  // 12 x 4800 MT/s x 8 bytes
  ASSERT_TRUE(m.percent_of_ceiling.has_value());
  EXPECT_NEAR(*m.percent_of_ceiling, 66.67, 0.01);
}

TEST(AttachCeilings, UnknownStaysUnknown) {
  Report report = report_with("hostmem", 10);
  attach_ceilings(report, inventory_with_channels(std::nullopt));
  const Measurement& m = report.probes[0].measurements[0];
  EXPECT_FALSE(m.ceiling.ceiling.has_value());
  EXPECT_NE(m.ceiling.unknown_reason.find("channel"), std::string::npos);
  EXPECT_FALSE(m.percent_of_ceiling.has_value());
}

TEST(AttachCeilings, StageWithoutModelSaysSo) {
  Report report = report_with("teleport", 10);
  attach_ceilings(report, inventory_with_channels(12));
  EXPECT_EQ(report.probes[0].measurements[0].ceiling.unknown_reason,
            "no ceiling model for stage 'teleport'");
}

TEST(AttachCeilings, NoPercentWhenUnitsDiffer) {
  Report report = report_with("hostmem", 10);
  report.probes[0].measurements[0].unit = "IOPS";
  attach_ceilings(report, inventory_with_channels(12));
  EXPECT_FALSE(report.probes[0].measurements[0].percent_of_ceiling.has_value());
}

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

Measurement decode_measurement(int threads, double rate) {
  Measurement m;
  m.key = "decode/full/threads:" + std::to_string(threads);
  m.stage = "decode";
  m.unit = "images/s";
  m.stats = {rate, rate, rate, 1};
  m.params = {{"threads", std::to_string(threads)}};
  return m;
}

TEST(AttachCeilings, DecodeScalingIsHeldAgainstOneThread) {
  Report report;
  report.probes.push_back({"pipecheck-decode", "decode", ProbeStatus::ok, "", 1,
                           {decode_measurement(1, 100), decode_measurement(4, 300)}, {}});
  attach_ceilings(report, Inventory{});
  const auto& one = report.probes[0].measurements[0];
  const auto& four = report.probes[0].measurements[1];
  EXPECT_FALSE(one.ceiling.ceiling.has_value());
  ASSERT_TRUE(four.ceiling.ceiling.has_value());
  EXPECT_DOUBLE_EQ(four.ceiling.ceiling->value, 400.0);
  EXPECT_NEAR(*four.percent_of_ceiling, 75.0, 1e-9);  // the scaling efficiency
  EXPECT_NE(four.ceiling.ceiling->derivation.find("4 threads x 100.0"), std::string::npos);
}

TEST(AttachCeilings, StorageUsesTheDiskOfThePath) {
  Inventory inv;
  BlockDevice nvme;
  nvme.name = "nvme0n1";
  nvme.kind = DiskKind::nvme;
  nvme.pcie = {16.0, 4, 16.0, 4};
  BlockDevice vda;
  vda.name = "vda";
  vda.kind = DiskKind::virtual_disk;
  inv.disks = {nvme, vda};
  Measurement seq;
  seq.key = "storage/seq";
  seq.stage = "storage";
  seq.unit = "GB/s";
  seq.stats = {6.3, 6.3, 6.3, 1};
  seq.params = {{"device", "nvme0n1"}};
  Measurement iops = seq;
  iops.unit = "IOPS";
  Measurement virt = seq;
  virt.params = {{"device", "vda"}};
  Measurement nfs = seq;
  nfs.params = {{"disk_kind", "network_fs"}};
  const auto ceiling = [&](const Measurement& m) { return ceiling_for(m, inv); };
  ASSERT_TRUE(ceiling(seq).ceiling.has_value());
  EXPECT_NEAR(ceiling(seq).ceiling->value, 7.88, 0.01);  // Gen4 x4
  EXPECT_NE(ceiling(iops).unknown_reason.find("not operations"), std::string::npos);
  EXPECT_NE(ceiling(virt).unknown_reason.find("virtual disk"), std::string::npos);
  EXPECT_NE(ceiling(nfs).unknown_reason.find("network filesystem"), std::string::npos);
  Measurement loop = seq;
  loop.params = {{"device", "loop3"}, {"disk_kind", "loop"}};  // squashfs datasets on HPC clusters
  EXPECT_EQ(ceiling(loop).unknown_reason, "no ceiling: loop device (the disk under its backing file bounds it)");
}

}  // namespace
}  // namespace pipecheck

namespace pipecheck {
namespace {

// A run whose profile turned the CPU limit off wrote the quiet check's threshold as infinity,
// which JSON holds as null, and report.json could not be read back ("type must be number").
TEST(ReportJson, QuietCheckWithoutALimitReadsBack) {
  Report report;
  report.host = "h";
  QuietCheck quiet;
  quiet.threshold_percent = std::numeric_limits<double>::infinity();
  report.quiet_check = quiet;
  const nlohmann::json written = report_to_json(report);
  EXPECT_TRUE(written["quiet_check"]["threshold_percent"].is_null());
  const Report read = report_from_json(nlohmann::json::parse(written.dump()));
  ASSERT_TRUE(read.quiet_check);
  EXPECT_TRUE(std::isinf(read.quiet_check->threshold_percent));
  quiet.threshold_percent = 35;
  report.quiet_check = quiet;
  EXPECT_EQ(report_from_json(report_to_json(report)).quiet_check->threshold_percent, 35);
}

}  // namespace
}  // namespace pipecheck
