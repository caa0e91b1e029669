// JSON round trips: what is written reads back equal (inventory, measurement, report).
#include "core/json_records.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/measurement.hpp"
#include "report/report.hpp"

namespace pipecheck {
namespace {

using nlohmann::json;

Inventory sample_inventory() {
  Inventory inv;
  inv.hostname = "gpu-node-07";
  inv.collected_utc = "2026-11-30T08:00:00Z";
  inv.cpu = {"AMD EPYC 9654 96-Core Processor", 2, 192, 384, 2, 384 << 20, {}, ""};
  inv.memory.total_bytes = 1ull << 40;
  inv.memory.dimms.push_back({"DIMM_A1", 64ull << 30, 4800, 64, "DDR5"});
  inv.memory.memory_channels = 24;
  BlockDevice nvme;
  nvme.name = "nvme0n1";
  nvme.model = "Samsung SSD 990 PRO 2TB";
  nvme.kind = DiskKind::nvme;
  nvme.transport = "nvme";
  nvme.pci_bdf = "0000:02:00.0";
  nvme.pcie = {16.0, 4, 16.0, 4};
  nvme.numa_node = 0;
  BlockDevice vda;
  vda.name = "vda";
  vda.rotational = true;
  vda.kind = DiskKind::virtual_disk;
  vda.transport = "virtio";
  vda.sata_gbps = 6.0;
  inv.disks = {nvme, vda};
  GpuInfo gpu;
  gpu.cuda_index = 0;
  gpu.name = "NVIDIA H200";
  gpu.pci_bdf = "0000:17:00.0";
  gpu.cc_major = 9;
  gpu.sm_count = 132;
  gpu.max_sm_clock_mhz = 1980;
  gpu.memory_bytes = 150ull << 30;
  gpu.pcie = {16.0, 16, 32.0, 16};
  gpu.power_limit_w = 700.0;
  gpu.nvlink.active_links = 18;
  gpu.nvlink.total_links_probed = 18;
  gpu.nvlink.version = 4;
  inv.gpus = {gpu};
  inv.software.kernel = "6.1.0";
  inv.software.driver_version = "580.65.06";
  inv.software.driver_cuda_version = 12040;
  inv.software.runtime_cuda_version = 13000;
  inv.software.in_container = true;
  inv.software.container_evidence = "/.dockerenv";
  inv.software.nvidia_device_nodes = {"/dev/nvidia0", "/dev/nvidiactl"};
  inv.notes = {"a note"};
  inv.cpu.caches = {{3, "unified", 32u << 20, 24, 384u << 20}};
  inv.cpu.source = "hwloc 2.9.0";
  inv.cpu_allowance.online = 384;
  inv.cpu_allowance.affinity = 64;
  inv.cpu_allowance.quota_cpus = 16.0;
  inv.cpu_allowance.quota_source = "/sys/fs/cgroup/job/cpu.max = 1600000 100000";
  inv.memory.total_source = "/proc/meminfo MemTotal";
  inv.memory.nodes = {{0, 192, 512ull << 30, ""}, {2, 0, 96ull << 30, "0009:01:00.0"}};
  inv.gpus[0].seen_by = {"cuda", "nvml", "pci"};
  inv.gpus[0].pci_driver = "nvidia";
  inv.gpus[0].pci_device_id = 0x2335;
  inv.gpus[0].device_minor = 0;
  inv.gpus[0].nvlink.version_source = "NVML";
  PciDevice nic;
  nic.bdf = "10000:01:00.0";
  nic.vendor_id = 0x15b3;
  nic.device_id = 0x1021;
  nic.class_code = 0x020700;
  nic.kind = "nic";
  nic.numa_node = 1;
  nic.local_cpus = "96-191";
  nic.link_gbps = 63.0;
  nic.upstream = {"pci0000:80", "0000:80:01.0"};
  nic.source = "sysfs";
  inv.pci = {nic};
  return inv;
}

TEST(InventoryJson, RoundTripIsExact) {
  const Inventory original = sample_inventory();
  const json first = original;
  const Inventory back = first.get<Inventory>();
  EXPECT_EQ(json(back), first);
  EXPECT_EQ(back.gpus.at(0).name, "NVIDIA H200");
  EXPECT_EQ(back.disks.at(1).kind, DiskKind::virtual_disk);
  EXPECT_EQ(*back.memory.memory_channels, 24);
}

TEST(InventoryJson, NewFactsRoundTrip) {
  const Inventory back = json(sample_inventory()).get<Inventory>();
  EXPECT_EQ(back.schema_version, kInventorySchemaVersion);
  EXPECT_EQ(back.cpu_allowance.usable(), 16);
  EXPECT_EQ(back.memory.nodes.at(1).gpu_bdf, "0009:01:00.0");
  EXPECT_EQ(back.pci.at(0).bdf, "10000:01:00.0");
  EXPECT_EQ(back.gpus.at(0).seen_by.size(), 3u);
  const json j = sample_inventory();
  EXPECT_EQ(j["cpu_allowance"]["usable"], 16);
  EXPECT_TRUE(j["cpu_allowance"]["limited"].get<bool>());
  EXPECT_TRUE(j["recorded_root"].is_null());
}

TEST(InventoryJson, UnknownCountsAreNull) {
  Inventory inv = sample_inventory();
  inv.cpu.sockets.reset();
  inv.memory.total_bytes.reset();
  const json j = inv;
  EXPECT_TRUE(j["cpu"]["sockets"].is_null());
  EXPECT_TRUE(j["memory"]["total_bytes"].is_null());
  EXPECT_FALSE(j.get<Inventory>().cpu.sockets.has_value());
}

// Version 1 files wrote 0 for what they did not know, and lacked the newer sections.
TEST(InventoryJson, ReadsVersionOne) {
  json j = sample_inventory();
  j["version"] = 1;
  j["cpu"]["sockets"] = 0;
  j["memory"]["total_bytes"] = 0;
  for (const char* key : {"cpu_allowance", "pci", "recorded_root"}) j.erase(key);
  j["cpu"].erase("caches");
  j["memory"].erase("nodes");
  j["gpus"][0].erase("seen_by");
  const Inventory old = j.get<Inventory>();
  EXPECT_FALSE(old.cpu.sockets.has_value());
  EXPECT_EQ(old.cpu.physical_cores, std::optional<int>(192));
  EXPECT_FALSE(old.memory.total_bytes.has_value());
  EXPECT_TRUE(old.pci.empty());
  EXPECT_TRUE(old.gpus[0].seen_by.empty());
}

TEST(InventoryJson, RefusesANewerVersion) {
  json j = sample_inventory();
  j["version"] = kInventorySchemaVersion + 1;
  EXPECT_THROW(j.get<Inventory>(), UsageError);
}

TEST(InventoryJson, DerivedFactsAreWritten) {
  const json j = sample_inventory();
  EXPECT_TRUE(j["gpus"][0]["pcie"]["downtrained"].get<bool>());  // Gen4 of a Gen5 link
  EXPECT_FALSE(j["disks"][0]["pcie"]["downtrained"].get<bool>());
  EXPECT_FALSE(j["software"]["cuda_mismatch"].is_null());  // driver 12.4 < runtime 13.0
  EXPECT_TRUE(j["disks"][1]["numa_node"].is_null());       // unknown stays null
  EXPECT_EQ(j["gpus"][0]["compute_capability"], "9.0");
}

Measurement sample_measurement() {
  Measurement m;
  m.key = "hostmem/memcpy/threads:1";
  m.stage = "hostmem";
  m.what = "memcpy, 1 thread";
  m.unit = "GB/s";
  m.stats = {18.5, 17.25, 19.0, 5};
  m.params = {{"threads", "1"}};
  m.ceiling = CeilingResult::known({307.2, "GB/s", "theoretical", "307.2 GB/s = ..."});
  m.percent_of_ceiling = 6.02;
  return m;
}

TEST(MeasurementJson, RoundTripKeepsCeilingOrReason) {
  const Measurement with = sample_measurement();
  EXPECT_EQ(json(json(with).get<Measurement>()), json(with));
  Measurement without = with;
  without.ceiling = CeilingResult::unknown("no ceiling: virtual disk");
  without.percent_of_ceiling.reset();
  const Measurement back = json(without).get<Measurement>();
  EXPECT_FALSE(back.ceiling.ceiling.has_value());
  EXPECT_EQ(back.ceiling.unknown_reason, "no ceiling: virtual disk");
  EXPECT_FALSE(back.percent_of_ceiling.has_value());
}

TEST(ReportJson, RoundTripIsExact) {
  Report report;
  report.pipecheck_version = "0.1.0";
  report.host = "h";
  report.started_utc = "a";
  report.finished_utc = "b";
  report.mode = "quick";
  ProbeOutcome ok{"pipecheck-hostmem", "hostmem", ProbeStatus::ok, "", 7.5, {sample_measurement()}, {}};
  ProbeOutcome crashed{"pipecheck-x", "x", ProbeStatus::failed, "killed by signal 11", 1.0, {}, {"x/a: e"}};
  ProbeOutcome skipped{"pipecheck-compute", "compute", ProbeStatus::skipped, "skipped: no CUDA device", 0.1, {}, {}};
  report.probes = {ok, crashed, skipped};
  const json first = report_to_json(report);
  const json second = report_to_json(report_from_json(first));
  EXPECT_EQ(first, second);
  EXPECT_EQ(first["measurements"].size(), 1u);
  EXPECT_EQ(first["measurements"][0]["probe"], "pipecheck-hostmem");
}

TEST(ReportJson, ConditionsRepetitionsAndQuietCheckRoundTrip) {
  Report report;
  Measurement m = sample_measurement();
  m.repetitions = {18.1, 18.7, 18.9, 18.2, 18.8};
  m.stopping = "converged: noise 1.5% <= 2% after 5 repetitions";
  m.interleaved = true;
  m.stats = summarize(m.repetitions);
  attach_spread(m);
  m.percent_low = 40;
  m.percent_high = 44;
  ProbeOutcome ok{"pipecheck-hostmem", "hostmem", ProbeStatus::ok, "", 7.5, {m}, {}};
  RunConditions c;
  c.seconds = 7.5;
  c.other_cpu_percent = 187.5;
  c.probe_cpu_percent = 190;
  c.steal_percent = 1.5;
  c.iowait_percent = 0.25;
  c.loadavg_1m = 3.43;
  c.governor = "performance";
  c.governor_performance = true;
  c.clock_mhz_min = 2400;
  c.clock_mhz_max = 3100;
  c.usable_cpus = 2;
  c.cpu_allowance = "2 of 2 CPUs";
  c.top_consumers = {{812, "stress-ng", 98.5}};
  c.gpu_processes = {{4411, "python3", "0000:17:00.0", 1ull << 33}};
  c.gpu_clock_events = {"0000:17:00.0: SwThermalSlowdown"};
  c.gpu_note = "";
  ok.conditions = c;
  report.probes = {ok};
  report.quiet_check = QuietCheck{c, 20, false, 12.5};
  const json first = report_to_json(report);
  EXPECT_EQ(first["probes"][0]["conditions"]["other_cpu_percent"], 187.5);
  EXPECT_EQ(first["probes"][0]["conditions"]["loadavg_1m"], 3.43);
  EXPECT_EQ(first["probes"][0]["conditions"]["governor"], "performance");
  EXPECT_EQ(first["probes"][0]["conditions"]["steal_percent"], 1.5);
  EXPECT_EQ(first["measurements"][0]["repetitions"].size(), 5u);
  EXPECT_EQ(first["measurements"][0]["stats"]["noise_percent"], *m.noise_percent);
  EXPECT_EQ(first["quiet_check"]["waited_seconds"], 12.5);
  const Report back = report_from_json(first);
  EXPECT_EQ(report_to_json(back), first);
  ASSERT_TRUE(back.probes[0].conditions);
  EXPECT_EQ(back.probes[0].conditions->top_consumers[0].command, "stress-ng");
  EXPECT_EQ(back.probes[0].measurements[0].repetitions, m.repetitions);
}

TEST(ReportJson, OlderReportsWithoutConditionsOrRepetitionsStillRead) {
  Report report;
  report.probes = {{"pipecheck-hostmem", "hostmem", ProbeStatus::ok, "", 7.5, {sample_measurement()}, {}}};
  json older = report_to_json(report);
  older["probes"][0].erase("conditions");
  older.erase("quiet_check");
  for (const char* key : {"repetitions", "stopping", "interleaved", "percent_of_ceiling_low", "percent_of_ceiling_high"}) {
    older["measurements"][0].erase(key);
  }
  older["measurements"][0]["stats"].erase("noise_percent");
  older["measurements"][0]["stats"].erase("median_interval");
  older["version"] = 1;
  const Report back = report_from_json(older);
  EXPECT_FALSE(back.probes[0].conditions);
  EXPECT_FALSE(back.quiet_check);
  EXPECT_TRUE(back.probes[0].measurements[0].repetitions.empty());
  EXPECT_FALSE(back.probes[0].measurements[0].noise_percent);
}

TEST(ReportJson, RejectsWhatIsNotAReport) {
  EXPECT_THROW(report_from_json(json::parse(R"({"benchmarks": []})")), std::runtime_error);
  json newer = report_to_json(Report{});
  newer["version"] = kReportSchemaVersion + 1;
  EXPECT_THROW(report_from_json(newer), std::runtime_error);
}

}  // namespace
}  // namespace pipecheck
