// Planted histories for the history tests: run folders (report.json + inventory.json, real
// files as `pipecheck run` writes them) of one host whose figures hold a stable series, a step
// down at run 30, a slow slide from run 20 and a PCIe link that sometimes trains at half speed,
// and of a second host whose runs fail and hang.
#pragma once

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "core/json_text.hpp"
#include "core/stage_names.hpp"
#include "report/report.hpp"

namespace pipecheck::test {

inline constexpr int kPlantedRuns = 50;
inline constexpr int kStepAt = 30;   // first run of the step (0-based)
inline constexpr int kSlideAt = 20;  // first run of the slide
inline const std::set<int> kLinkLowRuns = {4, 13, 21, 33, 41, 47};
inline constexpr char kPlantedHost[] = "planted-node";
inline constexpr char kLemonHost[] = "lemon-node";

inline std::string planted_time(int run) {
  // One run a day from 2026-01-01, 06:00.
  static const int days_in[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int month = 0, day = run;
  while (day >= days_in[month]) day -= days_in[month++];
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "2026-%02d-%02dT06:00:00Z", month + 1, day + 1);
  return buffer;
}

inline Measurement planted_measurement(const std::string& key, const char* stage, double centre, double rep_noise,
                                       std::mt19937& rng) {
  Measurement m;
  m.key = key;
  m.stage = stage;
  m.what = key;
  m.unit = "GB/s";
  std::normal_distribution<double> noise(0, rep_noise);
  for (int r = 0; r < 5; ++r) m.repetitions.push_back(centre * (1 + noise(rng)));
  m.stats = summarize(m.repetitions);
  attach_spread(m);
  return m;
}

inline Report planted_report(const std::string& host, int run, std::mt19937& rng) {
  Report report;
  report.pipecheck_version = "0.1.0";
  report.host = host;
  report.started_utc = planted_time(run);
  report.finished_utc = report.started_utc;
  report.mode = "quick";
  std::normal_distribution<double> run_to_run(0, 1);
  ProbeOutcome memory;
  memory.probe = "pipecheck-memory";
  memory.stage = stage_name::memory;
  memory.status = ProbeStatus::ok;
  // Stable: 0.5% between runs, 0.5% between repetitions.
  memory.measurements.push_back(planted_measurement("memory/stable/gpu0", stage_name::memory,
                                                    3000 * (1 + 0.005 * run_to_run(rng)), 0.005, rng));
  // Stable and noisy: 2.5% between runs, 2% between repetitions.
  memory.measurements.push_back(planted_measurement("memory/noisy/gpu0", stage_name::memory,
                                                    2500 * (1 + 0.025 * run_to_run(rng)), 0.02, rng));
  // A step down of 8% from run kStepAt.
  const double step = run >= kStepAt ? 0.92 : 1.0;
  memory.measurements.push_back(planted_measurement("memory/step/gpu0", stage_name::memory,
                                                    3000 * step * (1 + 0.005 * run_to_run(rng)), 0.005, rng));
  ProbeOutcome hostmem;
  hostmem.probe = "pipecheck-hostmem";
  hostmem.stage = stage_name::hostmem;
  hostmem.status = ProbeStatus::ok;
  // A slide of 0.4% a run from run kSlideAt (-12% by run 49).
  const double slide = run >= kSlideAt ? 1 - 0.004 * (run - kSlideAt + 1) : 1.0;
  hostmem.measurements.push_back(planted_measurement("hostmem/slide/threads:1", stage_name::hostmem,
                                                     20 * slide * (1 + 0.005 * run_to_run(rng)), 0.005, rng));
  report.probes = {memory, hostmem};
  return report;
}

// The inventory of a recorded H200 machine with GPU 0's link at half speed in `low` runs.
inline nlohmann::json planted_inventory(const std::string& host, bool low) {
  nlohmann::json inventory =
      nlohmann::json::parse(read_file(std::filesystem::path(PIPECHECK_TEST_DATA) / "golden/h200/inventory.json"));
  inventory["hostname"] = host;
  if (low) inventory["gpus"][0]["pcie"]["current_gts"] = 16.0;
  return inventory;
}

inline void write_run_folder(const std::filesystem::path& folder, const Report& report, const nlohmann::json& inventory) {
  std::filesystem::create_directories(folder);
  write_file_atomically(folder / "inventory.json", json_text(inventory) + "\n");
  write_file_atomically(folder / "report.json", json_text(report_to_json(report)) + "\n");
}

// kPlantedRuns folders of the planted host under `dir` (runs first..last-1).
inline void write_planted_runs(const std::filesystem::path& dir, int first = 0, int last = kPlantedRuns) {
  std::mt19937 rng(20260101);
  for (int run = 0; run < last; ++run) {
    const Report report = planted_report(kPlantedHost, run, rng);  // every run draws, so the series is the same
    if (run < first) continue;
    write_run_folder(dir / (std::string(kPlantedHost) + "-" + std::to_string(1000 + run)), report,
                     planted_inventory(kPlantedHost, kLinkLowRuns.count(run) > 0));
  }
}

// 12 runs of a host that fails: a hang in run 3, the overall verdict fail in runs 5 and 9.
inline void write_lemon_runs(const std::filesystem::path& dir) {
  std::mt19937 rng(7);
  for (int run = 0; run < 12; ++run) {
    Report report = planted_report(kLemonHost, run, rng);
    if (run == 3) {
      ProbeOutcome hung;
      hung.probe = "pipecheck-compute";
      hung.stage = stage_name::compute;
      hung.status = ProbeStatus::failed;
      hung.reason = "timed out after 300 s";
      report.probes.push_back(hung);
    }
    if (run == 5 || run == 9) {
      report.judged.overall = Verdict::fail;
      Judgement j;
      j.subject = "memory/step/gpu0";
      j.stage = stage_name::memory;
      j.verdict = Verdict::fail;
      j.explanation = "2100 GB/s is 43.8% of 4800 GB/s, below 85%";
      report.judged.judgements.push_back(j);
    }
    write_run_folder(dir / (std::string(kLemonHost) + "-" + std::to_string(1000 + run)), report,
                     planted_inventory(kLemonHost, false));
  }
}

}  // namespace pipecheck::test
