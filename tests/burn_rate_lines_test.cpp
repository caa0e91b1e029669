// The report's burn rates against their ceilings: from a stress summary.json as the stress run
// writes it, into the lines the Markdown and HTML reports show.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/file_io.hpp"
#include "render/burn_rate_lines.hpp"
#include "render/render_files.hpp"
#include "stress/stress_judge.hpp"
#include "telemetry/telemetry_csv.hpp"

namespace pipecheck {
namespace {

namespace fs = std::filesystem;

StressSummary judged_summary() {
  StressSummary summary;
  summary.dtype = "bf16";
  summary.cpu.enabled = true;
  summary.cpu.threads = 2;
  summary.cpu.isa = "avx512";
  summary.cpu.precision = "fp64";
  summary.cpu.sustained_gflops = 96;
  summary.cpu.ceiling = CeilingResult::unknown("no cpufreq");
  summary.cpu.sanity_bound = Ceiling{384, "GFLOP/s", "sanity bound", "384 GFLOP/s = 2 cores x 6 GHz x 32"};
  GpuStressSummary gpu;
  gpu.index = 0;
  gpu.sustained_tflops = 742.1;
  gpu.ceiling = CeilingResult::known(Ceiling{989.4, "TFLOP/s", "vendor spec", "989.4 TFLOP/s vendor spec (H100 SXM)"});
  summary.gpus.push_back(gpu);
  GpuStressSummary idle;
  idle.index = 1;
  idle.ceiling = CeilingResult::unknown("no vendor spec");
  summary.gpus.push_back(idle);
  judge_stress(summary);
  return summary;
}

TEST(BurnRateLines, EachBurnAgainstItsCeiling) {
  const auto lines = burn_rate_lines(stress_summary_json(judged_summary()));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "CPU burn, 2 threads of avx512 fp64: 96.0 GFLOP/s, 25% of the sanity bound 384 GFLOP/s = 2 cores x 6 GHz "
            "x 32; ceiling unknown: no cpufreq (verdict pass)");
  EXPECT_EQ(lines[1], "GPU 0 burn (bf16): 742.1 TFLOP/s, 75% of the ceiling 989.4 TFLOP/s vendor spec (H100 SXM) "
                      "(verdict pass)");
  EXPECT_EQ(lines[2], "GPU 1 burn (bf16): no sustained rate (verdict pass)");
  EXPECT_TRUE(burn_rate_lines(nlohmann::json::object()).empty());
}

TEST(BurnRateLines, TheReportReadsThemBesideTheTelemetry) {
  const fs::path dir = fs::temp_directory_path() / ("pipecheck-burnlines-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "stress");
  write_file_atomically(dir / "stress" / "telemetry.csv", telemetry_csv_header() + "\n");
  write_file_atomically(dir / "stress" / "summary.json", stress_summary_json(judged_summary()).dump());
  std::vector<std::string> notes;
  RenderExtras extras = read_render_extras(dir, notes);
  EXPECT_TRUE(notes.empty()) << notes[0];
  ASSERT_EQ(extras.burn_rates.size(), 3u);
  EXPECT_EQ(extras.burn_rates[0].rfind("CPU burn, 2 threads of avx512 fp64: 96.0 GFLOP/s", 0), 0u);
  // A summary of a newer schema is left out with a note, and the report still renders.
  nlohmann::json newer = stress_summary_json(judged_summary());
  newer["version"] = 99;
  write_file_atomically(dir / "stress" / "summary.json", newer.dump());
  extras = read_render_extras(dir, notes);
  EXPECT_TRUE(extras.burn_rates.empty());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("schema version 99 is newer"), std::string::npos) << notes[0];
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pipecheck
