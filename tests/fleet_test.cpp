// Fleet comparison on a recorded fleet of 4 hosts with 2 GPUs each (tests/data/compare/fleet):
// node-c's host memory is slow, node-d's second GPU is slow; node-a's older, slower run and an
// unfinished run must not count.
#include "compare/fleet.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/errors.hpp"
#include "render/compare_text.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(PIPECHECK_TEST_DATA) / "compare";

std::vector<LoadedRun> recorded_fleet(std::vector<std::string>* notes_out = nullptr) {
  std::vector<std::string> notes;
  auto runs = load_fleet({kData / "fleet"}, false, notes);
  if (notes_out) *notes_out = notes;
  return runs;
}

const FleetGroup* find_group(const FleetResult& result, const std::string& name) {
  for (const auto& g : result.groups) {
    if (g.group == name) return &g;
  }
  return nullptr;
}

TEST(FleetKeys, GpuPartIsStripped) {
  EXPECT_EQ(strip_gpu_part("compute/gemm/bf16/gpu0"), "compute/gemm/bf16");
  EXPECT_EQ(strip_gpu_part("compute/gemm/gpu:3/bf16"), "compute/gemm/bf16");
  EXPECT_EQ(strip_gpu_part("hbm/copy/gpu_bdf:0000:17:00.0"), "hbm/copy");
  EXPECT_EQ(strip_gpu_part("hostmem/memcpy/threads:1"), "hostmem/memcpy/threads:1");
  EXPECT_EQ(strip_gpu_part("comm/gpudirect/gpux"), "comm/gpudirect/gpux");
}

TEST(FleetLoad, LatestRunPerHostAndUnfinishedSkipped) {
  std::vector<std::string> notes;
  const auto runs = recorded_fleet(&notes);
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& run : runs) EXPECT_EQ(run.report.started_utc, "2026-11-30T08:00:00Z") << run.source;
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("node-e-20261130T090000Z.incomplete: an unfinished run"), std::string::npos)
      << notes[0];
  EXPECT_NE(notes[1].find("host node-a: using its latest run, not"), std::string::npos) << notes[1];
  EXPECT_NE(notes[1].find("node-a-20261129T080000Z"), std::string::npos) << notes[1];
}

TEST(FleetAnalyze, NamesTheSlowHostAndTheSlowGpu) {
  const FleetResult result = analyze_fleet(recorded_fleet());
  ASSERT_EQ(result.outlier_hosts.size(), 1u);
  EXPECT_EQ(result.outlier_hosts[0].host, "node-c");
  EXPECT_EQ(result.outlier_hosts[0].worst_key, "hostmem/memcpy/threads:1");
  EXPECT_NEAR(result.outlier_hosts[0].worst_deviation_percent, 100.0 * (12.1 - 18.5) / 18.5, 1e-9);
  ASSERT_EQ(result.outlier_gpus.size(), 1u);
  EXPECT_EQ(result.outlier_gpus[0].host, "node-d");
  EXPECT_EQ(result.outlier_gpus[0].gpu, "0000:2a:00.0");
  EXPECT_EQ(result.outlier_gpus[0].gpu_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(result.outlier_gpus[0].worst_key, "compute/gemm/bf16/gpu1");
  EXPECT_NEAR(result.outlier_gpus[0].worst_deviation_percent, 100.0 * (560 - 700.5) / 700.5, 1e-9);
  EXPECT_TRUE(result.has_outliers());
}

TEST(FleetAnalyze, EveryGpuHeldAgainstEveryOtherOfItsModel) {
  const FleetResult result = analyze_fleet(recorded_fleet());
  const FleetGroup* gemm = find_group(result, "compute/gemm/bf16 [NVIDIA H100 80GB HBM3]");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->samples.size(), 8u);
  EXPECT_TRUE(gemm->judged);
  EXPECT_DOUBLE_EQ(gemm->fleet_median, 700.5);
  const FleetGroup* storage = find_group(result, "storage/randread/bs:4096");
  ASSERT_NE(storage, nullptr);
  for (const auto& s : storage->samples) EXPECT_FALSE(s.outlier) << s.host;
}

TEST(FleetAnalyze, ToleranceBoundary) {
  FleetOptions options;
  options.tolerance_percent = 35;  // node-c is 34.6% short, node-d's GPU 20.1%
  EXPECT_FALSE(analyze_fleet(recorded_fleet(), options).has_outliers());
  options.tolerance_percent = 34;
  const FleetResult result = analyze_fleet(recorded_fleet(), options);
  EXPECT_EQ(result.outlier_hosts.size(), 1u);
  EXPECT_TRUE(result.outlier_gpus.empty());
}

LoadedRun host_run(const std::string& host, std::vector<Measurement> measurements) {
  LoadedRun run;
  run.source = host;
  run.identity.hostname = host;
  run.identity.gpus_known = true;
  run.identity.gpus.push_back({0, "0000:17:00.0", "GPU-" + host, "NVIDIA A100"});
  run.report.host = host;
  run.report.probes.push_back({"probe", "stage", ProbeStatus::ok, "", 1, std::move(measurements), {}});
  return run;
}

Measurement figure(const std::string& key, const std::string& unit, double median,
                   std::map<std::string, std::string> params = {}) {
  Measurement m;
  m.key = key;
  m.unit = unit;
  m.stats = {median, median, median, 5};
  m.params = std::move(params);
  return m;
}

TEST(FleetAnalyze, TimesAreWorseHigherAndGpuByBusId) {
  std::vector<LoadedRun> runs;
  for (const auto& [host, latency] : std::map<std::string, double>{{"h1", 10}, {"h2", 10.2}, {"h3", 15}}) {
    runs.push_back(host_run(host, {figure("io/latency", "us", latency),
                                   figure("hbm/copy/gpu_bdf:0000:17:00.0", "GB/s", host == "h1" ? 2000 : 3000,
                                          {{"gpu_bdf", "0000:17:00.0"}})}));
  }
  const FleetResult result = analyze_fleet(runs);
  ASSERT_EQ(result.outlier_hosts.size(), 1u);
  EXPECT_EQ(result.outlier_hosts[0].host, "h3");
  ASSERT_EQ(result.outlier_gpus.size(), 1u);
  EXPECT_EQ(result.outlier_gpus[0].host, "h1");
  EXPECT_EQ(result.outlier_gpus[0].gpu, "0000:17:00.0");
  EXPECT_NE(find_group(result, "hbm/copy [NVIDIA A100]"), nullptr);
}

TEST(FleetAnalyze, TooFewFiguresAreNotJudged) {
  std::vector<LoadedRun> runs = {host_run("h1", {figure("x/rate", "GB/s", 10)}),
                                 host_run("h2", {figure("x/rate", "GB/s", 1)})};
  const FleetResult result = analyze_fleet(runs);
  EXPECT_FALSE(result.has_outliers());
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_FALSE(result.groups[0].judged);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0], "x/rate: only 2 figure(s) in the fleet, not judged");
}

std::string usage_error_of(const std::vector<fs::path>& inputs, bool force = false) {
  std::vector<std::string> notes;
  try {
    load_fleet(inputs, force, notes);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "no error";
}

TEST(FleetLoad, BadInputIsNamed) {
  EXPECT_EQ(usage_error_of({kData / "fleet" / "nowhere"}),
            (kData / "fleet" / "nowhere").string() + ": no such file or folder");
  EXPECT_NE(usage_error_of({kData / "baseline", kData / "regressed"}).find("at least 2 hosts"),
            std::string::npos);
  // schema_v2 is node-a's later run, of version 2: it replaces node-a's version-1 run, so versions
  // mix. Older versions are read as written: a mix is no error.
  EXPECT_EQ(usage_error_of({kData / "baseline", kData / "fleet" / "node-b-20261130T080000Z", kData / "schema_v2"}),
            "no error");
  EXPECT_NE(usage_error_of({kData / "baseline", kData / "fleet" / "node-b-20261130T080000Z", kData / "schema_v3"})
                .find("newer than this pipecheck reads"),
            std::string::npos);
}

TEST(FleetText, NamesOutliersWithinWidth) {
  const FleetResult result = analyze_fleet(recorded_fleet());
  const std::string text = render_fleet_text(result);
  EXPECT_NE(text.find("outlier hosts:\n  node-c: 1 figure(s) beyond tolerance, worst "
                      "hostmem/memcpy/threads:1 -34.6%"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("node-d 0000:2a:00.0 (NVIDIA H100 80GB HBM3)"), std::string::npos) << text;
  EXPECT_NE(text.find("result: 1 outlier host(s), 1 outlier GPU(s)"), std::string::npos);
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) EXPECT_LE(static_cast<int>(line.size()), kCompareTextWidth) << line;
  const std::string markdown = render_fleet_markdown(result);
  EXPECT_NE(markdown.find("| `hostmem/memcpy/threads:1` | GB/s | 18.5 | 4 | node-c -34.6% |"),
            std::string::npos)
      << markdown;
}

TEST(FleetJson, OutliersAndGroups) {
  const nlohmann::json j = fleet_to_json(analyze_fleet(recorded_fleet()));
  EXPECT_EQ(j["schema"], "pipecheck.fleet");
  EXPECT_EQ(j["outlier_hosts"][0]["host"], "node-c");
  EXPECT_EQ(j["outlier_gpus"][0]["gpu"], "0000:2a:00.0");
  EXPECT_EQ(j["runs"].size(), 4u);
}

}  // namespace
}  // namespace pipecheck
