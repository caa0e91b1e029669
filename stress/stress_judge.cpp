// The stress run's rules and verdict (see stress_judge.hpp).
#include "stress/stress_judge.hpp"

#include <algorithm>
#include <cstdio>

#include "core/outcome.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

// Figures as the derivations write them: 384, 473.6, 78880.2; small ones with 3 digits: 0.001.
std::string figure(double value) {
  char buffer[64];
  if (value != 0 && value < 10 && value > -10) {
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
  }
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  std::string text = buffer;
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

// Injected faults the checker must have caught: fewer wrong results than faults means the
// check is broken (invalid); otherwise the faults are among the wrong results (fail).
void judge_injected(std::uint64_t injected, std::uint64_t caught, const std::string& what,
                    std::vector<std::string>& invalid) {
  if (injected > caught) {
    invalid.push_back("the checker caught " + std::to_string(caught) + " of " + std::to_string(injected) +
                      " injected " + what + ": the check is broken");
  }
}

Verdict judge_gpu(GpuStressSummary& gpu) {
  std::vector<std::string> invalid;
  if (gpu.sustained_tflops && gpu.ceiling.ceiling) {
    gpu.percent_of_ceiling = 100.0 * *gpu.sustained_tflops / gpu.ceiling.ceiling->value;
    if (auto why = above_ceiling(*gpu.sustained_tflops, *gpu.ceiling.ceiling)) invalid.push_back(*why);
  }
  judge_injected(gpu.injected_faults, gpu.wrong_results, "GEMM faults", invalid);
  judge_injected(gpu.injected_memory_faults, gpu.memory_errors, "memory faults", invalid);
  for (auto& reason : invalid) gpu.reasons.push_back(std::move(reason));
  auto fail = [&](std::string reason) { gpu.reasons.push_back(std::move(reason)); };
  auto injected = [](std::uint64_t n) {
    return n ? " (" + std::to_string(n) + " injected by --inject-faults)" : std::string();
  };
  if (gpu.wrong_results) fail(std::to_string(gpu.wrong_results) + " wrong GEMM results" + injected(gpu.injected_faults));
  if (gpu.memory_errors) {
    fail(std::to_string(gpu.memory_errors) + " memory-test errors" + injected(gpu.injected_memory_faults));
  }
  if (gpu.hang) fail("hang: " + gpu.hang->what + " did not finish within " + fixed(gpu.hang->deadline_s, 0) + " s");
  if (!gpu.error.empty()) fail("fault: " + gpu.error);
  for (const auto& xid : gpu.xids) fail("Xid " + std::to_string(xid.xid) + " (" + xid.source + ")");
  if (gpu.failing_throttle_s > 0) {
    std::string names;
    for (const auto& [name, seconds] : gpu.throttled_s) {
      const auto bits = parse_clock_event_reasons(name);
      if (bits && failing_clock_event_bits(*bits)) names += (names.empty() ? "" : ", ") + name + " " + fixed(seconds, 0) + " s";
    }
    fail("thermal/hardware slowdown: " + names);
  }
  if (gpu.ecc_uncorrected_delta.value_or(0) > 0) {
    fail(std::to_string(*gpu.ecc_uncorrected_delta) + " uncorrected ECC errors");
  }
  if (gpu.slow) fail("slow: " + fixed(gpu.slower_than_median_pct.value_or(0), 1) + "% below the median GPU");
  auto warn = [&](std::string warning) { gpu.warnings.push_back(std::move(warning)); };
  if (gpu.busy_but_not_loaded) {
    warn("busy but not loaded: GPU-Util " + fixed(gpu.mean_util_gpu_pct.value_or(0), 0) + "% but power " +
         fixed(100 * gpu.power_fraction.value_or(0), 0) + "% of the limit");
  }
  if (gpu.clock_unstable && gpu.sm_clock) warn("SM clock unstable: " + fixed(gpu.sm_clock->cv_pct, 1) + "% spread");
  if (gpu.ecc_corrected_delta.value_or(0) > 0) warn(std::to_string(*gpu.ecc_corrected_delta) + " corrected ECC errors");
  if (gpu.pcie_replays_delta.value_or(0) > 0) warn(std::to_string(*gpu.pcie_replays_delta) + " PCIe replays");
  if (gpu.loaded_samples == 0 && !gpu.hang && gpu.error.empty()) warn("no sample at full load after warm-up");
  const Verdict verdict = !invalid.empty() ? Verdict::invalid : gpu.reasons.empty() ? Verdict::pass : Verdict::fail;
  gpu.verdict = to_string(verdict);
  return verdict;
}

Verdict judge_cpu(CpuStressSummary& cpu, std::vector<std::string>& reasons) {
  std::vector<std::string> invalid, failed;
  const std::optional<Ceiling>& bound = cpu.ceiling.ceiling ? cpu.ceiling.ceiling : cpu.sanity_bound;
  if (cpu.sustained_gflops && bound) {
    cpu.percent_of_ceiling = 100.0 * *cpu.sustained_gflops / bound->value;
    if (auto why = above_ceiling(*cpu.sustained_gflops, *bound)) invalid.push_back(*why);
  }
  judge_injected(cpu.injected_faults, cpu.wrong_results, "faults", invalid);
  if (cpu.wrong_results) {
    failed.push_back(std::to_string(cpu.wrong_results) + " wrong results" +
                     (cpu.injected_faults ? " (" + std::to_string(cpu.injected_faults) + " injected by --inject-faults)"
                                          : std::string()));
  }
  if (!cpu.error.empty()) failed.push_back("fault: " + cpu.error);
  for (const auto& reason : invalid) reasons.push_back("cpu: " + reason);
  for (const auto& reason : failed) reasons.push_back("cpu: " + reason);
  const Verdict verdict = !invalid.empty() ? Verdict::invalid : failed.empty() ? Verdict::pass : Verdict::fail;
  cpu.verdict = to_string(verdict);
  return verdict;
}

}  // namespace

std::vector<std::size_t> slow_gpus(const std::vector<double>& tflops, double tolerance_pct,
                                   double* median) {
  std::vector<std::size_t> slow;
  if (tflops.size() < 2) return slow;
  const double middle = median_of(tflops);
  if (median) *median = middle;
  for (std::size_t i = 0; i < tflops.size(); ++i) {
    if (tflops[i] < middle * (1.0 - tolerance_pct / 100.0)) slow.push_back(i);
  }
  return slow;
}

std::optional<std::string> above_ceiling(double measured, const Ceiling& ceiling) {
  if (!(measured > kCeilingMargin * ceiling.value)) return std::nullopt;
  return "measured " + figure(measured) + " " + ceiling.unit + ", above the physical ceiling " +
         figure(ceiling.value) + " " + ceiling.unit + ": the probe measured something else, or the ceiling is wrong";
}

void judge_stress(StressSummary& summary) {
  std::vector<double> tflops;
  std::vector<std::size_t> measured;
  for (std::size_t i = 0; i < summary.gpus.size(); ++i) {
    if (summary.gpus[i].sustained_tflops) {
      tflops.push_back(*summary.gpus[i].sustained_tflops);
      measured.push_back(i);
    }
  }
  double median = 0;
  summary.slow_gpu_indices.clear();
  for (std::size_t k : slow_gpus(tflops, summary.rules.slow_tolerance_pct, &median)) {
    GpuStressSummary& gpu = summary.gpus[measured[k]];
    gpu.slow = true;
    summary.slow_gpu_indices.push_back(gpu.index);
  }
  if (tflops.size() >= 2) {
    summary.median_tflops = median;
    for (std::size_t k = 0; k < measured.size(); ++k) {
      summary.gpus[measured[k]].slower_than_median_pct = median > 0 ? 100.0 * (median - tflops[k]) / median : 0;
    }
  }
  Verdict overall = Verdict::pass;
  summary.reasons.clear();
  summary.warnings.clear();
  for (auto& gpu : summary.gpus) {
    gpu.reasons.clear();
    gpu.warnings.clear();
    overall = worse(overall, judge_gpu(gpu));
    for (const auto& reason : gpu.reasons) summary.reasons.push_back("gpu" + std::to_string(gpu.index) + ": " + reason);
    for (const auto& warning : gpu.warnings) summary.warnings.push_back("gpu" + std::to_string(gpu.index) + ": " + warning);
  }
  if (summary.cpu.enabled) overall = worse(overall, judge_cpu(summary.cpu, summary.reasons));
  const bool interrupted = summary.stopped_by == "interrupted";
  summary.verdict = interrupted && !is_failure(overall) ? "interrupted" : to_string(overall);
  if (interrupted) summary.reasons.push_back("interrupted by a signal after " + fixed(summary.duration_s, 1) + " s");
  summary.exit_code = code(interrupted ? ExitCode::interrupted : exit_code_for(overall));
}

}  // namespace pipecheck
