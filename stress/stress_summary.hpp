// The stress summary: per GPU (and for the CPU burn) what the run sustained and what went wrong,
// built from the telemetry rows as they are sampled, its JSON and its terminal text. The rules
// and the verdict are in stress_judge.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/measurement.hpp"
#include "stress/stress_rules.hpp"
#include "telemetry/telemetry_csv.hpp"
#include "telemetry/xid_monitor.hpp"

namespace pipecheck {

struct ClockStats {
  double mean_mhz = 0;
  double min_mhz = 0;
  double max_mhz = 0;
  double cv_pct = 0;  // standard deviation / mean
};

struct HangSummary {
  std::string what;
  double deadline_s = 0;
  double elapsed_s = 0;
  std::optional<TelemetryRow> last_telemetry;
};

struct GpuStressSummary {
  int index = -1;
  std::string bus_id;
  std::string name;
  std::size_t samples = 0;
  std::size_t loaded_samples = 0;  // after warm-up, at full load level
  std::optional<double> sustained_tflops;  // median over loaded samples
  std::optional<double> peak_tflops;
  std::uint64_t wrong_results = 0;
  std::uint64_t memory_errors = 0;
  std::optional<double> max_temp_c;
  std::optional<double> max_mem_temp_c;
  std::map<std::string, double> throttled_s;  // reason name -> seconds with it set
  double failing_throttle_s = 0;              // thermal and hardware slowdowns
  std::optional<double> mean_power_w;         // loaded samples
  std::optional<double> power_limit_w;
  std::optional<double> power_fraction;       // mean power / limit
  std::optional<double> mean_util_gpu_pct;
  bool busy_but_not_loaded = false;
  std::optional<ClockStats> sm_clock;
  bool clock_unstable = false;
  std::optional<std::uint64_t> ecc_corrected_delta;
  std::optional<std::uint64_t> ecc_uncorrected_delta;
  std::optional<std::uint64_t> pcie_replays_delta;
  std::vector<XidEvent> xids;
  std::optional<HangSummary> hang;
  std::string error;           // the worker's fault
  std::string telemetry_error; // NVML's first failure
  std::optional<double> slower_than_median_pct;
  bool slow = false;
  // The GPU's dense GEMM peak for the burn's dtype (ceilings/ceilings), and the sustained rate's
  // share of it; unknown with the reason for an unknown GPU.
  CeilingResult ceiling;
  std::optional<double> percent_of_ceiling;
  std::uint64_t injected_faults = 0;         // GEMM results corrupted on purpose (--inject-faults)
  std::uint64_t injected_memory_faults = 0;  // memory-test words corrupted on purpose
  std::string verdict = "pass";
  std::vector<std::string> reasons;   // why it fails
  std::vector<std::string> warnings;  // worth a look, not a failure
};

struct CpuStressSummary {
  bool enabled = false;
  unsigned threads = 0;
  std::string isa;          // the burn's variant: "avx512", "avx2", "sse2", "neon"
  std::string isa_display;  // "AVX-512"
  int vector_bits = 0;
  bool fused = false;
  std::string precision;    // "fp64", "fp32"
  std::optional<double> sustained_gflops;
  // The CPU ceiling (ceilings/cpu_ceiling), unknown with the reason (no cpufreq in a VM); the
  // sanity bound (cores x 6 GHz x 32 FP64 FLOP/cycle) holds the rate when it is unknown.
  CeilingResult ceiling;
  std::optional<Ceiling> sanity_bound;
  std::optional<double> percent_of_ceiling;  // of the ceiling, or of the sanity bound without one
  std::uint64_t wrong_results = 0;
  std::uint64_t injected_faults = 0;  // results corrupted on purpose (--inject-faults)
  std::optional<double> mean_util_pct;
  std::optional<double> max_temp_c;
  std::optional<double> mean_package_w;
  std::optional<double> max_package_w;
  std::string error;
  std::string verdict = "pass";
};

// Folds one source's rows into its summary as they are sampled (no row list is kept, so an
// 8-hour run costs no memory).
class SourceAccumulator {
 public:
  // level: the load profile's level at the row's time (1 = flat out).
  void add(const TelemetryRow& row, double level, double dt_s, const SummaryRules& rules);
  void finish_gpu(GpuStressSummary& gpu, const SummaryRules& rules) const;
  void finish_cpu(CpuStressSummary& cpu) const;
  std::uint64_t last_wrong_results() const { return last_wrong_; }
  const std::optional<TelemetryRow>& last_row() const { return last_row_; }

 private:
  std::size_t samples_ = 0;
  std::vector<double> loaded_tflops_;
  std::optional<double> peak_tflops_;
  std::uint64_t last_wrong_ = 0;
  std::optional<double> max_temp_, max_mem_temp_;
  std::map<std::string, double> throttled_s_;
  double failing_throttle_s_ = 0;
  double power_sum_ = 0, util_sum_ = 0, cpu_util_sum_ = 0;
  std::size_t power_n_ = 0, util_n_ = 0, cpu_util_n_ = 0;
  double busy_power_sum_ = 0, busy_util_sum_ = 0;
  std::size_t busy_n_ = 0;
  std::optional<double> power_limit_;
  double clock_sum_ = 0, clock_sq_ = 0;
  std::size_t clock_n_ = 0;
  std::optional<double> clock_min_, clock_max_;
  std::optional<std::uint64_t> ecc_c0_, ecc_c1_, ecc_u0_, ecc_u1_, replay0_, replay1_;
  std::optional<double> package_max_;
  double package_sum_ = 0;
  std::size_t package_n_ = 0;
  std::optional<TelemetryRow> last_row_;
};

struct StressSummary {
  std::string host;
  std::string started_utc;
  std::string ended_utc;
  double planned_s = 0;  // --duration, or --max-duration with --until-failure
  double duration_s = 0;
  std::string profile;
  double period_s = 0;
  bool until_failure = false;
  std::string stopped_by;  // "duration", "failure", "max_duration", "interrupted", "all_workers_ended"
  std::string dtype;
  double interval_s = 1;
  SummaryRules rules;
  std::vector<GpuStressSummary> gpus;
  CpuStressSummary cpu;
  std::optional<double> median_tflops;
  std::vector<int> slow_gpu_indices;
  std::vector<XidEvent> other_xids;  // on GPUs not under test
  std::vector<std::string> notes;
  std::uint64_t inject_faults = 0;  // --inject-faults N: faults requested of each checker
  std::string verdict = "pass";     // "pass", "fail", "invalid", "interrupted" (stress_judge.hpp)
  std::vector<std::string> reasons;
  std::vector<std::string> warnings;
  int exit_code = 0;
};

nlohmann::json stress_summary_json(const StressSummary& summary);
nlohmann::json telemetry_row_json(const TelemetryRow& row);
// The terminal summary: a few lines a GPU, the verdict and its reasons last.
std::string render_stress_summary(const StressSummary& summary);

}  // namespace pipecheck
