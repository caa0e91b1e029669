// Records of `check` and `stress` for the history (see history_sources.hpp).
#include "history/history_sources.hpp"

#include <algorithm>
#include <cctype>

#include "core/file_io.hpp"
#include "core/stage_names.hpp"
#include "pipecheck_config.hpp"

namespace pipecheck {

namespace {

bool mentions(std::string text, const std::string& word) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text.find(word) != std::string::npos;
}

}  // namespace

HistoryRun history_run_from_check(const Inventory& inventory, const std::vector<HealthProblem>& problems,
                                  const std::string& mode, const std::string& started_utc) {
  Verdict overall = Verdict::pass;
  for (const auto& p : problems) {
    if (severity(p.verdict) > severity(overall)) overall = p.verdict;
  }
  const std::string finished_utc = utc_now_iso();
  Report report;
  report.host = inventory.hostname.empty() ? host_name() : inventory.hostname;
  report.started_utc = started_utc;
  report.finished_utc = finished_utc;
  report.mode = mode;
  report.judged.overall = overall;
  report.pipecheck_version = PIPECHECK_VERSION;
  HistoryRun run = history_run_from(report, &inventory, "check", "");
  for (const auto& p : problems) {
    run.verdicts.push_back({p.subject, "", to_string(p.verdict), p.text});
    if (mentions(p.text, "xid")) {
      run.faults.push_back({"xid", p.subject + ": " + p.text});
    } else if (mentions(p.text, "ecc")) {
      run.faults.push_back({"ecc", p.subject + ": " + p.text});
    }
  }
  return run;
}

HistoryRun history_run_from_stress(const StressSummary& summary, const std::string& source) {
  HistoryRun run;
  run.host = summary.host;
  run.command = "stress";
  run.started_utc = summary.started_utc;
  run.finished_utc = summary.ended_utc;
  run.mode = summary.gpus.empty() ? summary.profile : summary.dtype + " " + summary.profile;
  run.overall = summary.verdict;
  run.source = source;
  run.pipecheck_version = PIPECHECK_VERSION;
  for (const auto& gpu : summary.gpus) {
    const std::string who = "gpu " + gpu.bus_id;
    if (gpu.sustained_tflops) {
      HistoryMeasurement m;
      m.key = std::string(stage_name::stress) + "/gemm/" + summary.dtype + "/" + gpu.bus_id;
      m.stage = stage_name::stress;
      m.what = "sustained GEMM, " + gpu.name + " " + gpu.bus_id;
      m.unit = "TFLOP/s";
      m.stats = {*gpu.sustained_tflops, *gpu.sustained_tflops, gpu.peak_tflops.value_or(*gpu.sustained_tflops),
                 static_cast<int>(gpu.loaded_samples)};
      m.percent_of_ceiling = gpu.percent_of_ceiling;
      m.verdict = gpu.verdict;
      run.measurements.push_back(std::move(m));
    }
    for (const auto& xid : gpu.xids) {
      run.faults.push_back({"xid", who + ": Xid " + std::to_string(xid.xid) + (xid.text.empty() ? "" : ": " + xid.text)});
    }
    if (gpu.ecc_uncorrected_delta.value_or(0) > 0) {
      run.faults.push_back({"ecc", who + ": " + std::to_string(*gpu.ecc_uncorrected_delta) + " uncorrected ECC errors"});
    }
    if (gpu.hang) run.faults.push_back({"hang", who + ": " + gpu.hang->what});
    if (gpu.wrong_results > gpu.injected_faults) {
      run.faults.push_back({"wrong result", who + ": " + std::to_string(gpu.wrong_results) + " wrong GEMM results"});
    }
    if (gpu.memory_errors > gpu.injected_memory_faults) {
      run.faults.push_back({"memory error", who + ": " + std::to_string(gpu.memory_errors) + " memory test errors"});
    }
    if (gpu.verdict == "fail" || gpu.verdict == "invalid") {
      for (const auto& reason : gpu.reasons) run.verdicts.push_back({who, stage_name::stress, gpu.verdict, reason});
    }
  }
  if (summary.cpu.enabled && summary.cpu.sustained_gflops) {
    HistoryMeasurement m;
    m.key = std::string(stage_name::stress) + "/cpu/" + summary.cpu.precision + "/" + summary.cpu.isa;
    m.stage = stage_name::stress;
    m.what = "sustained CPU burn, " + summary.cpu.isa_display;
    m.unit = "GFLOP/s";
    m.stats = {*summary.cpu.sustained_gflops, *summary.cpu.sustained_gflops, *summary.cpu.sustained_gflops, 1};
    m.percent_of_ceiling = summary.cpu.percent_of_ceiling;
    m.verdict = summary.cpu.verdict;
    run.measurements.push_back(std::move(m));
    if (summary.cpu.wrong_results > summary.cpu.injected_faults) {
      run.faults.push_back({"wrong result", "cpu: " + std::to_string(summary.cpu.wrong_results) + " wrong results"});
    }
  }
  for (const auto& xid : summary.other_xids) {
    run.faults.push_back({"xid", "gpu " + xid.bus_id + ": Xid " + std::to_string(xid.xid)});
  }
  return run;
}

}  // namespace pipecheck
