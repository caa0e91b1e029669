// Findings: each rule fires on the pattern it names, with its figures and evidence, and stays
// quiet when the figures are healthy.
#include "judge/findings.hpp"

#include <gtest/gtest.h>

#include "tests/measurement_records.hpp"

#include <algorithm>

namespace pipecheck {
namespace {

using testing::contains;
using testing::measure;

Report report_of(std::vector<Measurement> ms) {
  Report report;
  report.probes.push_back({"pipecheck-x", ms.empty() ? "x" : ms[0].stage, ProbeStatus::ok, "", 1, std::move(ms), {}});
  return report;
}

// The findings of one rule, by its table name.
std::vector<Finding> run_rule(const std::string& name, const Report& report, const Inventory& inventory = {}) {
  for (const auto& entry : finding_rules()) {
    if (entry.name == name) return entry.rule(report, inventory);
  }
  ADD_FAILURE() << "no finding rule " << name;
  return {};
}

TEST(Findings, EveryRuleIsInTheTableOnce) {
  std::vector<std::string> names;
  for (const auto& entry : finding_rules()) names.push_back(entry.name);
  for (const char* name : {"crashed_probe", "downtrained_gpu_link", "pageable_vs_pinned", "remote_numa_copies",
                           "slow_random_reads", "virtual_disk", "progressive_jpeg", "cmyk_jpeg", "poor_decode_scaling",
                           "gpu_decode_vs_cpu", "single_thread_memcpy", "bad_dataset_files", "storage_target_notes"}) {
    EXPECT_EQ(std::count(names.begin(), names.end(), name), 1) << name;
  }
}

Report pcie_report(double pageable_gbps) {
  return report_of({measure("pcie/h2d/pinned/gpu0", "pcie", 52, "GB/s", {{"direction", "h2d"}, {"host_memory", "pinned"}, {"gpu", "0"}}),
                    measure("pcie/h2d/pageable/gpu0", "pcie", pageable_gbps, "GB/s",
                            {{"direction", "h2d"}, {"host_memory", "pageable"}, {"gpu", "0"}})});
}

TEST(Findings, PageableVsPinned) {
  const auto findings = run_rule("pageable_vs_pinned", pcie_report(9));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].text,
            "pageable H2D reaches 9.00 GB/s against 52.0 GB/s pinned on GPU 0: use pinned host memory "
            "(pin_memory=True in the DataLoader)");
  EXPECT_EQ(findings[0].evidence, (std::vector<std::string>{"pcie/h2d/pageable/gpu0", "pcie/h2d/pinned/gpu0"}));
  EXPECT_TRUE(run_rule("pageable_vs_pinned", pcie_report(45)).empty());
}

TEST(Findings, RemoteNuma) {
  auto make = [](double remote) {
    return report_of({measure("pcie/h2d/pinned/local/gpu0", "pcie", 52, "GB/s",
                              {{"direction", "h2d"}, {"host_memory", "pinned"}, {"numa", "local"}, {"gpu", "0"}}),
                      measure("pcie/h2d/pinned/remote/gpu0", "pcie", remote, "GB/s",
                              {{"direction", "h2d"}, {"host_memory", "pinned"}, {"numa", "remote"}, {"gpu", "0"}})});
  };
  const auto findings = run_rule("remote_numa_copies", make(30));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(contains(findings[0].text, "far NUMA node reaches 30.0 GB/s against 52.0 GB/s")) << findings[0].text;
  EXPECT_TRUE(run_rule("remote_numa_copies", make(50)).empty());
}

Report random_reads(double gbps, const std::string& kind) {
  return report_of({measure("storage/rand_read/data", "storage", gbps, "GB/s",
                            {{"pattern", "rand_read"}, {"bs", "4096"}, {"device", "sda"}, {"disk_kind", kind}, {"path", "/data"}})});
}

TEST(Findings, RandomReadsOnHdd) {
  const auto findings = run_rule("slow_random_reads", random_reads(180 * 4096 / 1e9, "sata_hdd"));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(contains(findings[0].text, "random 4 KiB reads on /data (sda, HDD) reach 180 IOPS: a loader reading "
                                         "loose JPEGs from it cannot feed the GPU"))
      << findings[0].text;
  EXPECT_EQ(findings[0].evidence, std::vector<std::string>{"storage/rand_read/data"});
  EXPECT_TRUE(run_rule("slow_random_reads", random_reads(400000 * 4096 / 1e9, "nvme")).empty());
}

Report decode_sets(double progressive_rate) {
  return report_of({measure("decode/full/threads:1", "decode", 84, "images/s", {{"op", "full"}, {"set", "baseline"}, {"threads", "1"}}),
                    measure("decode/full_progressive/threads:1", "decode", progressive_rate, "images/s",
                            {{"op", "full"}, {"set", "progressive"}, {"threads", "1"}})});
}

TEST(Findings, ProgressiveJpegSlowdown) {
  const auto findings = run_rule("progressive_jpeg", decode_sets(12));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(contains(findings[0].text, "progressive JPEGs decode 7.0x slower than baseline ones (12.0 images/s against 84.0 images/s, 1 thread)"))
      << findings[0].text;
  EXPECT_TRUE(run_rule("progressive_jpeg", decode_sets(60)).empty());
}

// A dataset with CMYK files: the CMYK set's own rate, named files, and it never stands in for
// the baseline set of the progressive pair.
Report cmyk_dataset() {
  const std::map<std::string, std::string> corpus = {{"corpus", "/data/imgs"}, {"cmyk", "2"},
                                                     {"cmyk_file_names", "n01/a.jpg (CMYK), n02/b.jpg (YCCK)"}};
  auto with = [&](std::map<std::string, std::string> params) {
    params.insert(corpus.begin(), corpus.end());
    return params;
  };
  return report_of({measure("decode/full/threads:2", "decode", 84, "images/s", with({{"op", "full"}, {"set", "baseline"}, {"threads", "2"}})),
                    measure("decode/full_cmyk/threads:2", "decode", 30, "images/s", with({{"op", "full"}, {"set", "cmyk"}, {"threads", "2"}})),
                    measure("decode/full_cmyk/threads:4", "decode", 50, "images/s", with({{"op", "full"}, {"set", "cmyk"}, {"threads", "4"}})),
                    measure("decode/full_progressive/threads:2", "decode", 40, "images/s",
                            with({{"op", "full"}, {"set", "progressive"}, {"threads", "2"}}))});
}

TEST(Findings, CmykJpegsNamedWithTheirRate) {
  const auto findings = run_rule("cmyk_jpeg", cmyk_dataset());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Verdict::warn);
  EXPECT_TRUE(contains(findings[0].text, "2 files of /data/imgs are CMYK JPEGs (n01/a.jpg (CMYK), n02/b.jpg (YCCK)): decoded "
                                         "as a loader does, to CMYK then to RGB as Pillow's convert(\"RGB\"), at 30.0 images/s "
                                         "against 84.0 images/s for baseline ones (2 threads)"))
      << findings[0].text;
  EXPECT_EQ(findings[0].evidence, (std::vector<std::string>{"decode/full_cmyk/threads:2", "decode/full/threads:2"}));
  EXPECT_TRUE(run_rule("cmyk_jpeg", decode_sets(12)).empty());
  // The progressive set is held against the baseline set, never the (slower) CMYK one.
  const auto progressive = run_rule("progressive_jpeg", cmyk_dataset());
  ASSERT_EQ(progressive.size(), 1u);
  EXPECT_TRUE(contains(progressive[0].text, "(40.0 images/s against 84.0 images/s, 2 threads)")) << progressive[0].text;
}

// A dataset's run times CMYK files through the loader's path only: the finding takes that op's
// rates, CMYK against baseline.
TEST(Findings, CmykJpegsFromTheLoadersPath) {
  const std::map<std::string, std::string> corpus = {{"corpus", "/data/imgs"}, {"cmyk", "1"}, {"cmyk_file_names", "n01/a.jpg (CMYK)"}};
  auto with = [&](std::map<std::string, std::string> params) {
    params.insert(corpus.begin(), corpus.end());
    return params;
  };
  const Report report = report_of({measure("decode/full/threads:1", "decode", 700, "images/s", with({{"op", "full"}, {"set", "baseline"}, {"threads", "1"}})),
                                   measure("decode/loader/threads:1", "decode", 200, "images/s", with({{"op", "loader"}, {"set", "baseline"}, {"threads", "1"}})),
                                   measure("decode/loader_cmyk/threads:1", "decode", 120, "images/s", with({{"op", "loader"}, {"set", "cmyk"}, {"threads", "1"}}))});
  const auto findings = run_rule("cmyk_jpeg", report);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(contains(findings[0].text, "at 120 images/s against 200 images/s for baseline ones (1 thread)")) << findings[0].text;
}

Report decode_scaling(double efficiency_percent) {
  Measurement m = measure("decode/resize/threads:8", "decode", 8 * efficiency_percent, "images/s",
                          {{"op", "resize"}, {"set", "baseline"}, {"threads", "8"}});
  m.percent_of_ceiling = efficiency_percent;
  return report_of({m});
}

TEST(Findings, PoorDecodeScaling) {
  Inventory inventory;
  inventory.cpu.physical_cores = 8;
  const auto findings = run_rule("poor_decode_scaling", decode_scaling(40), inventory);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(contains(findings[0].text, "scales to 3.2x on 8 threads (40.0% of linear")) << findings[0].text;
  EXPECT_TRUE(run_rule("poor_decode_scaling", decode_scaling(85), inventory).empty());
  inventory.cpu.physical_cores = 4;  // 8 threads are SMT: not held against linear
  EXPECT_TRUE(run_rule("poor_decode_scaling", decode_scaling(40), inventory).empty());
}

TEST(Findings, GpuDecodeAgainstTheCpusBest) {
  const Report report = report_of(
      {measure("decode/full/threads:1", "decode", 40, "images/s", {{"op", "full"}, {"set", "baseline"}, {"threads", "1"}}),
       measure("decode/full/threads:16", "decode", 500, "images/s", {{"op", "full"}, {"set", "baseline"}, {"threads", "16"}}),
       measure("decode/nvjpeg", "decode", 3000, "images/s",
               {{"op", "nvjpeg"}, {"set", "baseline"}, {"backend", "hardware (JPEG engine)"}})});
  const auto findings = run_rule("gpu_decode_vs_cpu", report);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Verdict::info);
  EXPECT_TRUE(contains(findings[0].text, "reaches 3000 images/s, 6.0x the CPU's best full decode (500 images/s on 16 threads)"))
      << findings[0].text;
  EXPECT_TRUE(run_rule("gpu_decode_vs_cpu", decode_scaling(40)).empty());  // no GPU figure: nothing to say
}

Report memcpy_pair(double one_thread) {
  return report_of({measure("hostmem/memcpy/threads:1", "hostmem", one_thread, "GB/s", {{"op", "memcpy"}, {"threads", "1"}}),
                    measure("hostmem/memcpy/threads:32", "hostmem", 95, "GB/s", {{"op", "memcpy"}, {"threads", "32"}})});
}

TEST(Findings, SingleThreadMemcpy) {
  const auto findings = run_rule("single_thread_memcpy", memcpy_pair(8));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(contains(findings[0].text, "one thread copies 8.00 GB/s against 95.0 GB/s with 32 threads")) << findings[0].text;
  EXPECT_TRUE(run_rule("single_thread_memcpy", memcpy_pair(40)).empty());
}

TEST(Findings, VirtualDisk) {
  const auto report = report_of({measure("storage/seq_read/vda", "storage", 1.2, "GB/s",
                                         {{"pattern", "seq_read"}, {"device", "vda"}, {"disk_kind", "virtual_disk"}})});
  const auto findings = run_rule("virtual_disk", report);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(contains(findings[0].text, "vda is a virtual disk: it has no hardware ceiling, and its best 1.20 GB/s"))
      << findings[0].text;
  const auto nvme = report_of({measure("storage/seq_read/nvme0n1", "storage", 6, "GB/s",
                                       {{"pattern", "seq_read"}, {"device", "nvme0n1"}, {"disk_kind", "nvme"}})});
  EXPECT_TRUE(run_rule("virtual_disk", nvme).empty());
}

TEST(Findings, DowntrainedGpuLink) {
  Inventory inventory;
  GpuInfo gpu;
  gpu.cuda_index = 1;
  gpu.pci_bdf = "0000:3b:00.0";
  gpu.pcie = {16.0, 8, 32.0, 16};
  inventory.gpus.push_back(gpu);
  const auto findings = run_rule("downtrained_gpu_link", {}, inventory);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(contains(findings[0].text, "GPU 1 (0000:3b:00.0) link runs at 16 GT/s x8 against 32 GT/s x16")) << findings[0].text;
  EXPECT_TRUE(contains(findings[0].text, "capped at 15.8 GB/s instead of 63.0 GB/s")) << findings[0].text;
  EXPECT_EQ(findings[0].evidence, std::vector<std::string>{"inventory/gpu1/pcie_link"});
  inventory.gpus[0].pcie = {32.0, 16, 32.0, 16};
  EXPECT_TRUE(run_rule("downtrained_gpu_link", {}, inventory).empty());
}

TEST(Findings, CrashedProbe) {
  Report report;
  report.probes.push_back({"pipecheck-decode", "decode", ProbeStatus::failed, "killed by signal 11 (Segmentation fault)", 1, {}, {}});
  report.probes.push_back({"pipecheck-compute", "compute", ProbeStatus::skipped, "skipped: no CUDA device", 0, {}, {}});
  const auto findings = run_rule("crashed_probe", report);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Verdict::fail);
  EXPECT_TRUE(contains(findings[0].text, "the decode probe (pipecheck-decode) failed (killed by signal 11")) << findings[0].text;
  EXPECT_EQ(findings[0].evidence, std::vector<std::string>{"probe/decode"});
}

TEST(Findings, BadDatasetFilesOncePerDataset) {
  const std::map<std::string, std::string> corpus = {
      {"corpus", "/data/train"}, {"bad_files", "2"}, {"bad_file_names", "a.jpg (empty file), b.jpg (truncated)"}};
  auto decode = [&](const std::string& key) {
    auto params = corpus;
    params["threads"] = "1";
    return measure(key, "decode", 80, "images/s", params);
  };
  Report report = report_of({decode("decode/full/threads:1"), decode("decode/full/threads:2")});
  const Measurement storage = measure("storage/dataset_read/vda", "storage", 1.2, "GB/s",
                                      {{"path", "/data/train"}, {"files_unreadable", "3"},
                                       {"first_unreadable", "open /data/train/x: Permission denied"}});
  report.probes.push_back({"pipecheck-storage", "storage", ProbeStatus::ok, "", 1, {storage, storage}, {}});
  const auto findings = run_rule("bad_dataset_files", report);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Verdict::warn);
  EXPECT_EQ(findings[0].text,
            "2 files of /data/train are not sound JPEGs and were left out of the decode figures: a.jpg (empty file), "
            "b.jpg (truncated); a data loader fails or skips on them too");
  EXPECT_EQ(findings[1].text,
            "3 files of /data/train could not be opened and were not read (first: open /data/train/x: Permission "
            "denied): the read figures leave them out");
  // A generated corpus, or a sound dataset: nothing to say.
  EXPECT_TRUE(run_rule("bad_dataset_files", report_of({measure("decode/full/threads:1", "decode", 80, "images/s",
                                                               {{"corpus", "generated"}, {"bad_files", "0"}})}))
                  .empty());
}

TEST(Findings, StorageNotesAndUnreadableFoldersAreSaidOncePerTarget) {
  const Measurement sparse = measure("storage/seq_read/vda", "storage", 14, "GB/s",
                                     {{"path", "/data/big.bin"},
                                      {"note", "a sparse file: 99% of its 102400 MiB are holes, which read as zeros "
                                               "without touching the disk, so the figures are not the device's"}});
  const Measurement locked = measure("storage/dataset_read/vda", "storage", 1.2, "GB/s",
                                     {{"path", "/data/train"}, {"dirs_unreadable", "2"},
                                      {"first_unreadable_dir", "/data/train/locked: Permission denied"}});
  Report report = report_of({});
  report.probes.push_back({"pipecheck-storage", "storage", ProbeStatus::ok, "", 1, {sparse, sparse, locked}, {}});
  const auto notes = run_rule("storage_target_notes", report);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].severity, Verdict::warn);
  EXPECT_EQ(notes[0].text.rfind("/data/big.bin: a sparse file: 99%", 0), 0u) << notes[0].text;
  const auto folders = run_rule("bad_dataset_files", report);
  ASSERT_EQ(folders.size(), 1u);
  EXPECT_EQ(folders[0].text,
            "2 sub-folder(s) of /data/train could not be read and were left out (first: /data/train/locked: "
            "Permission denied): the read figures leave out their files");
}

TEST(Findings, HealthyReportHasNone) {
  Report report = pcie_report(45);
  const Report memcpy = memcpy_pair(40);
  for (const auto& m : memcpy.probes[0].measurements) report.probes[0].measurements.push_back(m);
  EXPECT_TRUE(find_findings(report, {}).empty());
}

}  // namespace
}  // namespace pipecheck
