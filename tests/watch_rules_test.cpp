// The rules on recorded samples (tests/data/watch/*.csv, made by make_fixtures.py): each
// fixture's situation gives its verdict, with the figures behind it; and the table itself.
#include <gtest/gtest.h>

#include <set>

#include "core/file_io.hpp"
#include "tests/watch_test_support.hpp"
#include "watch/watch_csv.hpp"
#include "watch/watch_rules.hpp"

namespace pipecheck {
namespace {

std::vector<WatchSample> load(const std::string& name) {
  const ParsedWatchCsv parsed = parse_watch_csv(read_file(watch_test::fixture(name)));
  EXPECT_TRUE(parsed.errors.empty()) << name << ": " << parsed.errors.front();
  return parsed.samples;
}

WatchVerdict judge_fixture(const std::string& name, WatchAnalysis* out = nullptr,
                           const MeasuredCeilings* ceilings = nullptr, const std::set<std::string>& direct = {}) {
  const WatchAnalysis analysis = analyze_watch(load(name), ceilings, watch_analysis_options(), {}, direct);
  if (out) *out = analysis;
  return judge_watch(analysis);
}

std::string headline(const WatchVerdict& v) { return v.headline ? v.headline->rule : "(none)"; }

bool fired(const WatchVerdict& v, const std::string& rule) {
  for (const auto& f : v.findings) {
    if (f.rule == rule) return true;
  }
  return false;
}

std::string all_figures(const WatchFinding& f) {
  std::string text;
  for (const auto& line : f.figures) text += line + "\n";
  return text;
}

TEST(WatchRules, BusyButNotLoaded) {
  const WatchVerdict v = judge_fixture("gpu_busy_not_loaded.csv");
  EXPECT_EQ(headline(v), "busy_not_loaded");
  EXPECT_NE(all_figures(*v.headline).find("limit = 2"), std::string::npos) << all_figures(*v.headline);
  EXPECT_FALSE(fired(v, "compute_bound"));
}

TEST(WatchRules, ComputeBound) {
  const WatchVerdict v = judge_fixture("gpu_compute_bound.csv");
  EXPECT_EQ(headline(v), "compute_bound");
  EXPECT_NE(v.headline->verdict.find("healthy"), std::string::npos);
  EXPECT_NE(all_figures(*v.headline).find("SwPowerCap in 100%"), std::string::npos) << all_figures(*v.headline);
}

TEST(WatchRules, StragglerSawtooth) {
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("gpu_straggler.csv", &a);
  EXPECT_EQ(headline(v), "gpu_straggler_sawtooth");
  EXPECT_EQ(a.sawtooth.leader, 2);
  EXPECT_NE(v.headline->verdict.find("gpu2"), std::string::npos) << v.headline->verdict;
  EXPECT_NEAR(a.sawtooth.mean_lead_s, 1.0, 0.01);
}

TEST(WatchRules, PeriodicIdleGivesPeriodAndShareLost) {
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("gpu_periodic.csv", &a);
  ASSERT_TRUE(a.periodic.found);
  EXPECT_NEAR(a.periodic.period_s, 20, 0.01);
  EXPECT_NEAR(a.periodic.idle_share, 0.2, 0.04);
  ASSERT_TRUE(fired(v, "periodic_idle"));
  // Outside the idle episodes the GPU is at its power limit: that stays the verdict.
  EXPECT_EQ(headline(v), "compute_bound");
  for (const auto& f : v.findings) {
    if (f.rule == "periodic_idle") {
      EXPECT_NE(f.verdict.find("every 20.0 s"), std::string::npos) << f.verdict;
    }
  }
}

TEST(WatchRules, InputSingleProcess) {
  const WatchVerdict v = judge_fixture("gpu_input_single_process.csv");
  EXPECT_EQ(headline(v), "input_single_process");
  EXPECT_NE(v.headline->verdict.find("num_workers=0"), std::string::npos);
  EXPECT_NE(all_figures(*v.headline).find("python:4242"), std::string::npos);
}

TEST(WatchRules, StorageBoundAgainstTheMeasuredCeiling) {
  const MeasuredCeilings ceilings = load_measured_ceilings(watch_test::fixture("baseline_run"));
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("gpu_storage_bound.csv", &a, &ceilings, {"sda"});
  EXPECT_EQ(headline(v), "storage_bound");
  EXPECT_NE(v.headline->verdict.find("sda"), std::string::npos);
  const std::string figures = all_figures(*v.headline);
  EXPECT_NE(figures.find("reads 182 MB/s from sda"), std::string::npos) << figures;
  EXPECT_NE(figures.find("= 95.7% of its measured 190 MB/s"), std::string::npos) << figures;
  // 125 KB reads: their IOPS are not held against the 4 KiB random-read IOPS.
  for (const auto& c : a.comparisons) EXPECT_NE(c.unit, "IOPS") << c.text;
  // The PCIe RX of the fixture (1200 MB/s) against the measured 25.1 GB/s.
  bool pcie = false;
  for (const auto& c : a.comparisons) pcie = pcie || (c.stage == "pcie" && c.subject == "gpu0");
  EXPECT_TRUE(pcie);
}

TEST(WatchRules, AReaderThroughThePageCacheIsHeldAgainstTheColdBufferedRead) {
  const MeasuredCeilings ceilings = load_measured_ceilings(watch_test::fixture("baseline_run"));
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("gpu_storage_bound.csv", &a, &ceilings);
  EXPECT_EQ(headline(v), "storage_bound");
  ASSERT_FALSE(a.disks.empty());
  ASSERT_FALSE(a.disks[0].ceilings.empty());
  const CeilingComparison& c = a.disks[0].ceilings[0];
  EXPECT_EQ(c.measured_by, "storage/seq_read_buffered_cold/sda") << c.text;
  EXPECT_DOUBLE_EQ(c.ceiling, 170);
  EXPECT_TRUE(c.jobs);
}

TEST(WatchRules, ADiskRateIsTheJobsOnlyWhenItsOwnCountersShowIt) {
  const MeasuredCeilings ceilings = load_measured_ceilings(watch_test::fixture("baseline_run"));
  std::vector<WatchSample> samples = load("gpu_storage_bound.csv");
  for (auto& s : samples) s.job.read_mbs = 0.0;  // another process reads sda
  const WatchAnalysis a = analyze_watch(samples, &ceilings, watch_analysis_options());
  ASSERT_FALSE(a.comparisons.empty());
  for (const auto& c : a.comparisons) {
    if (c.stage != "storage") continue;
    EXPECT_FALSE(c.jobs) << c.text;
    EXPECT_EQ(c.text.rfind("sda was busy, not with the job: it reads 182 MB/s", 0), 0u) << c.text;
    EXPECT_NE(c.text.find("the job read 0 MB/s"), std::string::npos) << c.text;
  }
  // Its own counters showing a part of the disk's reads: the part is named.
  for (auto& s : samples) s.job.read_mbs = 40.0;
  const WatchAnalysis part = analyze_watch(samples, &ceilings, watch_analysis_options());
  for (const auto& c : part.comparisons) {
    if (c.stage == "storage") {
      EXPECT_NE(c.text.find("the job read 40.0 MB/s"), std::string::npos) << c.text;
    }
  }
}

TEST(WatchRules, StorageBoundWithoutBaselineByUtilization) {
  const WatchVerdict v = judge_fixture("gpu_storage_bound.csv");
  EXPECT_EQ(headline(v), "storage_bound");
  EXPECT_NE(all_figures(*v.headline).find("sda is busy 97"), std::string::npos) << all_figures(*v.headline);
}

TEST(WatchRules, ABusyDiskTheJobDoesNotReadIsNotItsBottleneck) {
  std::vector<WatchSample> samples = load("gpu_storage_bound.csv");
  for (auto& s : samples) s.job.read_mbs = 0.0;  // another process keeps sda busy
  const WatchVerdict quiet = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_FALSE(fired(quiet, "storage_bound")) << headline(quiet);
  // Where the job's counters cannot be read (another user's job), its disk reading all the
  // time is the evidence.
  for (auto& s : samples) s.job.read_mbs.reset();
  const WatchVerdict unreadable = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_EQ(headline(unreadable), "storage_bound");
}

TEST(WatchRules, SingleThreadedCpuBoundWithoutGpu) {
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("cpu_single_thread.csv", &a);
  EXPECT_FALSE(a.has_gpu);
  EXPECT_EQ(headline(v), "cpu_single_thread");
  // Half a core on a loaded machine, yet runnable all the time: CPU bound all the same.
  EXPECT_LT(a.job.top_cpu_median, 70);
}

TEST(WatchRules, TooShortToJudge) {
  std::vector<WatchSample> samples = load("gpu_compute_bound.csv");
  samples.resize(3);
  const WatchVerdict v = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_EQ(headline(v), "too_short");
  EXPECT_EQ(v.findings.size(), 1u);
}

TEST(WatchRules, TooShortSaysWhatWasSeen) {
  std::vector<WatchSample> samples = load("cpu_single_thread.csv");
  samples.resize(1);
  WatchAnalysis a = analyze_watch(samples, nullptr, watch_analysis_options());
  a.usage = JobUsage{0.42, 0.3, 0.08, 8192, 12.5};
  const WatchVerdict v = judge_watch(a);
  ASSERT_EQ(headline(v), "too_short");
  const std::string figures = all_figures(*v.headline);
  EXPECT_NE(figures.find("0 steady samples of 1\n"), std::string::npos) << figures;
  EXPECT_NE(figures.find("the command ran 0.42 s: CPU 0.38 s (user 0.3 s, system 0.08 s), read 8 KiB"),
            std::string::npos)
      << figures;
  EXPECT_NE(figures.find("seen while sampled: up to 1 processes, 1 threads"), std::string::npos) << figures;
}

// ---- contention ------------------------------------------------------------------------------

TEST(WatchRules, ContentionNamesWhatHoldsTheCpus) {
  WatchAnalysis a = analyze_watch(load("cpu_contention.csv"), nullptr, watch_analysis_options());
  a.other_processes = {{"stress", 812, 1, 98.0}, {"cc1plus", 900, 14, 12.0}};
  const WatchVerdict v = judge_watch(a);
  ASSERT_EQ(headline(v), "cpu_contention") << (v.headline ? v.headline->verdict : "");
  EXPECT_NE(v.headline->verdict.find("(busiest: stress, pid 812)"), std::string::npos) << v.headline->verdict;
  const std::string figures = all_figures(*v.headline);
  EXPECT_NE(figures.find("stress (pid 812) 98%, cc1plus (14 processes) 12%"), std::string::npos) << figures;
  EXPECT_NE(figures.find("runnable without a CPU 3"), std::string::npos) << figures;  // 66 / (133 + 66)
  EXPECT_NE(figures.find("other processes and the kernel used 0.6"), std::string::npos) << figures;
}

TEST(WatchRules, NoContentionWhenTheJobHoldsTheCpusItselfOrDoesNotWait) {
  std::vector<WatchSample> samples = load("cpu_contention.csv");
  // The same waits with nothing else using the CPUs: the job's workers wait for each other
  // (more of them than cores, or a CPU quota), not for another program.
  for (auto& s : samples) s.host.cpu_pct = s.job.cpu_pct / 2;
  const WatchVerdict own = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_FALSE(fired(own, "cpu_contention")) << headline(own);
  samples = load("cpu_contention.csv");
  for (auto& s : samples) s.job.run_wait_pct = 10;
  const WatchVerdict no_wait = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_FALSE(fired(no_wait, "cpu_contention")) << headline(no_wait);
}

// ---- storage latency -------------------------------------------------------------------------

TEST(WatchRules, ColdSingleReaderWaitsOnStorageLatency) {
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("cold_reader.csv", &a);
  ASSERT_EQ(headline(v), "storage_latency") << (v.headline ? v.headline->verdict : "");
  EXPECT_EQ(v.headline->verdict, "waiting on storage latency: 0.92 read in flight on vda, the disk can take more");
  const std::string figures = all_figures(*v.headline);
  EXPECT_NE(figures.find("the job's threads were blocked on I/O 6"), std::string::npos) << figures;
  EXPECT_NE(figures.find("most blocked thread python3:6001"), std::string::npos) << figures;
  EXPECT_NE(v.headline->advice.find("more loader workers"), std::string::npos);
  EXPECT_FALSE(fired(v, "storage_bound"));
  EXPECT_FALSE(fired(v, "job_idle")) << "blocked on reads is not idle";
}

TEST(WatchRules, AReaderNotBlockedOnItsReadsIsNotLatencyBound) {
  std::vector<WatchSample> samples = load("cold_reader.csv");
  for (auto& s : samples) s.job.io_blocked_pct = 10.0;
  EXPECT_FALSE(fired(judge_watch(analyze_watch(samples, nullptr, watch_analysis_options())), "storage_latency"));
  for (auto& s : samples) s.job.io_blocked_pct.reset();  // not measured (an older watch.csv)
  EXPECT_FALSE(fired(judge_watch(analyze_watch(samples, nullptr, watch_analysis_options())), "storage_latency"));
}

TEST(WatchRules, ASaturatedDiskStaysStorageBound) {
  std::vector<WatchSample> samples = load("cold_reader.csv");
  for (auto& s : samples) {
    for (auto& d : s.disks) {
      d.util_pct = 96;
      d.aqu_sz = 7.5;  // eight readers
    }
  }
  const WatchVerdict v = judge_watch(analyze_watch(samples, nullptr, watch_analysis_options()));
  EXPECT_EQ(headline(v), "storage_bound");
  EXPECT_FALSE(fired(v, "storage_latency"));
  EXPECT_NE(all_figures(*v.headline).find("with 7.50 requests in flight"), std::string::npos) << all_figures(*v.headline);
}

TEST(WatchRules, BusyButFarBelowTheMeasuredIopsIsLatency) {
  // One thread of random 4 KiB O_DIRECT reads: 8000 IOPS, the disk busy 85% with one read in
  // flight, where pipecheck run measured 47000 IOPS with 32 in flight.
  std::vector<WatchSample> samples = load("cold_reader.csv");
  for (auto& s : samples) {
    s.job.read_mbs = 32.8;
    for (auto& d : s.disks) {
      d.read_mbs = 32.8;
      d.read_iops = 8000;
      d.util_pct = 85;
      d.aqu_sz = 0.95;
    }
  }
  MeasuredCeilings ceilings;
  ceilings.disk_iops["vda"] = {47000, "IOPS", "rand read 4 KiB QD32, vda (virtual_disk)", "storage/rand_read/vda"};
  ceilings.disk_mbs["vda"] = {2017, "MB/s", "seq read 1 MiB QD32, vda (virtual_disk)", "storage/seq_read/vda"};
  const WatchVerdict v = judge_watch(analyze_watch(samples, &ceilings, watch_analysis_options(), {}, {"vda"}));
  ASSERT_EQ(headline(v), "storage_latency") << (v.headline ? v.headline->verdict : "");
  EXPECT_NE(all_figures(*v.headline).find("= 17.0% of its measured 47000 IOPS"), std::string::npos)
      << all_figures(*v.headline);
}

// ---- periodic --------------------------------------------------------------------------------

TEST(WatchRules, PeriodicStallCountsPartlyIdleSamples) {
  // 2.0 s stalls every 7.5 s sampled each second: 26.7% of the time lost.
  WatchAnalysis a;
  const WatchVerdict v = judge_fixture("cpu_periodic_partial.csv", &a);
  ASSERT_TRUE(a.periodic.found) << a.periodic.episodes;
  EXPECT_NEAR(a.periodic.period_s, 7.5, 0.2 * 7.5);
  EXPECT_NEAR(a.periodic.mean_idle_s, 2.0, 0.2 * 2.0);
  EXPECT_NEAR(a.periodic.idle_share, 2.0 / 7.5, 0.2 * 2.0 / 7.5);
  EXPECT_TRUE(fired(v, "periodic_idle"));
}

TEST(WatchRules, TableListsEveryRuleOnceWithItsThresholds) {
  std::set<std::string> ids;
  for (const auto& rule : watch_rules()) {
    EXPECT_TRUE(ids.insert(rule.id).second) << rule.id;
    EXPECT_FALSE(rule.condition.empty()) << rule.id;
    EXPECT_NE(rule.judge, nullptr) << rule.id;
  }
  EXPECT_EQ(ids.size(), 19u);
  const std::string table = render_rules_table();
  for (const auto& id : ids) EXPECT_NE(table.find(id), std::string::npos) << id;
  EXPECT_NE(table.find("GPU util < 50%"), std::string::npos) << table;
  EXPECT_NE(table.find("power < 60% of the limit"), std::string::npos) << table;
}

}  // namespace
}  // namespace pipecheck
