// Folding telemetry into the stress summary, and the summary's JSON and text.
#include "stress/stress_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/json_records.hpp"
#include "core/outcome.hpp"
#include "telemetry/throttle_reasons.hpp"

namespace pipecheck {

namespace {

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void keep_max(std::optional<double>& into, const std::optional<double>& value) {
  if (value && (!into || *value > *into)) into = value;
}

std::optional<std::uint64_t> delta(const std::optional<std::uint64_t>& first,
                                   const std::optional<std::uint64_t>& last) {
  if (!first || !last) return std::nullopt;
  return *last >= *first ? *last - *first : *last;  // a counter reset (driver reload) restarts
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// A ceiling's object ({value, unit, basis, derivation}) or null.
nlohmann::json ceiling_json(const CeilingResult& ceiling) {
  return ceiling.ceiling ? nlohmann::json(*ceiling.ceiling) : nlohmann::json(nullptr);
}

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

}  // namespace

void SourceAccumulator::add(const TelemetryRow& row, double level, double dt_s,
                            const SummaryRules& rules) {
  ++samples_;
  const bool loaded = level >= 1.0 && row.elapsed_s >= rules.warmup_s;
  if (row.tflops) {
    keep_max(peak_tflops_, row.tflops);
    if (loaded) loaded_tflops_.push_back(*row.tflops);
  }
  if (row.wrong_results) last_wrong_ = std::max(last_wrong_, *row.wrong_results);
  keep_max(max_temp_, row.temp_c);
  keep_max(max_mem_temp_, row.mem_temp_c);
  keep_max(max_temp_, row.cpu_temp_c);
  if (row.throttle_mask) {
    for (const auto& name : decode_clock_event_reasons(*row.throttle_mask)) throttled_s_[name] += dt_s;
    if (failing_clock_event_bits(*row.throttle_mask)) failing_throttle_s_ += dt_s;
  }
  if (row.power_limit_w) power_limit_ = row.power_limit_w;
  if (loaded && row.power_w) {
    power_sum_ += *row.power_w;
    ++power_n_;
  }
  if (loaded && row.util_gpu_pct) {
    util_sum_ += *row.util_gpu_pct;
    ++util_n_;
    if (*row.util_gpu_pct >= rules.busy_util_pct && row.power_w) {
      busy_power_sum_ += *row.power_w;
      busy_util_sum_ += *row.util_gpu_pct;
      ++busy_n_;
    }
  }
  if (loaded && row.sm_clock_mhz) {
    const double mhz = *row.sm_clock_mhz;
    clock_sum_ += mhz;
    clock_sq_ += mhz * mhz;
    ++clock_n_;
    clock_min_ = clock_min_ ? std::min(*clock_min_, mhz) : mhz;
    clock_max_ = clock_max_ ? std::max(*clock_max_, mhz) : mhz;
  }
  if (row.ecc_corrected) {
    if (!ecc_c0_) ecc_c0_ = row.ecc_corrected;
    ecc_c1_ = row.ecc_corrected;
  }
  if (row.ecc_uncorrected) {
    if (!ecc_u0_) ecc_u0_ = row.ecc_uncorrected;
    ecc_u1_ = row.ecc_uncorrected;
  }
  if (row.pcie_replays) {
    if (!replay0_) replay0_ = row.pcie_replays;
    replay1_ = row.pcie_replays;
  }
  if (loaded && row.cpu_util_pct) {
    cpu_util_sum_ += *row.cpu_util_pct;
    ++cpu_util_n_;
  }
  if (row.cpu_package_w) {
    keep_max(package_max_, row.cpu_package_w);
    if (loaded) {
      package_sum_ += *row.cpu_package_w;
      ++package_n_;
    }
  }
  last_row_ = row;
}

void SourceAccumulator::finish_gpu(GpuStressSummary& gpu, const SummaryRules& rules) const {
  gpu.samples = samples_;
  gpu.loaded_samples = loaded_tflops_.size();
  if (!loaded_tflops_.empty()) gpu.sustained_tflops = median_of(loaded_tflops_);
  gpu.peak_tflops = peak_tflops_;
  gpu.wrong_results = std::max(gpu.wrong_results, last_wrong_);
  gpu.max_temp_c = max_temp_;
  gpu.max_mem_temp_c = max_mem_temp_;
  gpu.throttled_s = throttled_s_;
  gpu.failing_throttle_s = failing_throttle_s_;
  gpu.power_limit_w = power_limit_;
  if (power_n_) gpu.mean_power_w = power_sum_ / static_cast<double>(power_n_);
  if (gpu.mean_power_w && power_limit_ && *power_limit_ > 0) gpu.power_fraction = *gpu.mean_power_w / *power_limit_;
  if (util_n_) gpu.mean_util_gpu_pct = util_sum_ / static_cast<double>(util_n_);
  if (busy_n_ && power_limit_) {
    const double n = static_cast<double>(busy_n_);
    gpu.busy_but_not_loaded = busy_but_not_loaded(busy_util_sum_ / n, busy_power_sum_ / n, *power_limit_, rules);
  }
  if (clock_n_) {
    ClockStats clock;
    const double n = static_cast<double>(clock_n_);
    clock.mean_mhz = clock_sum_ / n;
    clock.min_mhz = *clock_min_;
    clock.max_mhz = *clock_max_;
    const double variance = std::max(0.0, clock_sq_ / n - clock.mean_mhz * clock.mean_mhz);
    clock.cv_pct = clock.mean_mhz > 0 ? 100.0 * std::sqrt(variance) / clock.mean_mhz : 0;
    gpu.sm_clock = clock;
    gpu.clock_unstable = clock.cv_pct > rules.clock_cv_pct;
  }
  gpu.ecc_corrected_delta = delta(ecc_c0_, ecc_c1_);
  gpu.ecc_uncorrected_delta = delta(ecc_u0_, ecc_u1_);
  gpu.pcie_replays_delta = delta(replay0_, replay1_);
}

void SourceAccumulator::finish_cpu(CpuStressSummary& cpu) const {
  if (!loaded_tflops_.empty()) cpu.sustained_gflops = median_of(loaded_tflops_) * 1000.0;
  cpu.wrong_results = std::max(cpu.wrong_results, last_wrong_);
  if (cpu_util_n_) cpu.mean_util_pct = cpu_util_sum_ / static_cast<double>(cpu_util_n_);
  cpu.max_temp_c = max_temp_;
  if (package_n_) cpu.mean_package_w = package_sum_ / static_cast<double>(package_n_);
  cpu.max_package_w = package_max_;
}

nlohmann::json telemetry_row_json(const TelemetryRow& row) {
  return {{"utc_time", row.utc_time},
          {"elapsed_s", row.elapsed_s},
          {"source", row.source},
          {"gpu_index", optional_json(row.gpu_index)},
          {"gpu_bus_id", row.gpu_bus_id},
          {"temp_c", optional_json(row.temp_c)},
          {"mem_temp_c", optional_json(row.mem_temp_c)},
          {"power_w", optional_json(row.power_w)},
          {"power_limit_w", optional_json(row.power_limit_w)},
          {"sm_clock_mhz", optional_json(row.sm_clock_mhz)},
          {"mem_clock_mhz", optional_json(row.mem_clock_mhz)},
          {"util_gpu_pct", optional_json(row.util_gpu_pct)},
          {"util_mem_pct", optional_json(row.util_mem_pct)},
          {"throttle_reasons", row.throttle_mask ? nlohmann::json(decode_clock_event_reasons(*row.throttle_mask))
                                                 : nlohmann::json(nullptr)},
          {"ecc_corrected", optional_json(row.ecc_corrected)},
          {"ecc_uncorrected", optional_json(row.ecc_uncorrected)},
          {"pcie_replays", optional_json(row.pcie_replays)},
          {"xid", row.xids},
          {"cpu_util_pct", optional_json(row.cpu_util_pct)},
          {"cpu_temp_c", optional_json(row.cpu_temp_c)},
          {"cpu_package_w", optional_json(row.cpu_package_w)},
          {"tflops", optional_json(row.tflops)},
          {"wrong_results", optional_json(row.wrong_results)}};
}

namespace {

nlohmann::json xid_json(const XidEvent& xid) {
  return {{"xid", xid.xid}, {"bus_id", xid.bus_id}, {"elapsed_s", xid.elapsed_s},
          {"source", xid.source}, {"text", xid.text}};
}

nlohmann::json gpu_json(const GpuStressSummary& gpu) {
  nlohmann::json xids = nlohmann::json::array();
  for (const auto& xid : gpu.xids) xids.push_back(xid_json(xid));
  nlohmann::json hang = nullptr;
  if (gpu.hang) {
    hang = {{"what", gpu.hang->what}, {"deadline_s", gpu.hang->deadline_s}, {"elapsed_s", gpu.hang->elapsed_s},
            {"last_telemetry", gpu.hang->last_telemetry ? telemetry_row_json(*gpu.hang->last_telemetry)
                                                        : nlohmann::json(nullptr)}};
  }
  nlohmann::json clock = nullptr;
  if (gpu.sm_clock) {
    clock = {{"mean_mhz", gpu.sm_clock->mean_mhz}, {"min_mhz", gpu.sm_clock->min_mhz},
             {"max_mhz", gpu.sm_clock->max_mhz}, {"cv_pct", gpu.sm_clock->cv_pct}};
  }
  return {{"index", gpu.index},
          {"bus_id", gpu.bus_id},
          {"name", gpu.name},
          {"samples", gpu.samples},
          {"loaded_samples", gpu.loaded_samples},
          {"sustained_tflops", optional_json(gpu.sustained_tflops)},
          {"peak_tflops", optional_json(gpu.peak_tflops)},
          {"wrong_results", gpu.wrong_results},
          {"memory_errors", gpu.memory_errors},
          {"max_temp_c", optional_json(gpu.max_temp_c)},
          {"max_mem_temp_c", optional_json(gpu.max_mem_temp_c)},
          {"throttled_s", gpu.throttled_s},
          {"failing_throttle_s", gpu.failing_throttle_s},
          {"mean_power_w", optional_json(gpu.mean_power_w)},
          {"power_limit_w", optional_json(gpu.power_limit_w)},
          {"power_fraction", optional_json(gpu.power_fraction)},
          {"mean_util_gpu_pct", optional_json(gpu.mean_util_gpu_pct)},
          {"busy_but_not_loaded", gpu.busy_but_not_loaded},
          {"sm_clock", clock},
          {"clock_unstable", gpu.clock_unstable},
          {"ecc_corrected_delta", optional_json(gpu.ecc_corrected_delta)},
          {"ecc_uncorrected_delta", optional_json(gpu.ecc_uncorrected_delta)},
          {"pcie_replays_delta", optional_json(gpu.pcie_replays_delta)},
          {"xids", xids},
          {"hang", hang},
          {"error", gpu.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(gpu.error)},
          {"telemetry_error", gpu.telemetry_error.empty() ? nlohmann::json(nullptr) : nlohmann::json(gpu.telemetry_error)},
          {"slower_than_median_pct", optional_json(gpu.slower_than_median_pct)},
          {"slow", gpu.slow},
          {"ceiling", ceiling_json(gpu.ceiling)},
          {"ceiling_unknown", text_or_null(gpu.ceiling.unknown_reason)},
          {"percent_of_ceiling", optional_json(gpu.percent_of_ceiling)},
          {"injected_faults", gpu.injected_faults},
          {"injected_memory_faults", gpu.injected_memory_faults},
          {"verdict", gpu.verdict},
          {"reasons", gpu.reasons},
          {"warnings", gpu.warnings}};
}

}  // namespace

nlohmann::json stress_summary_json(const StressSummary& s) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& gpu : s.gpus) gpus.push_back(gpu_json(gpu));
  nlohmann::json other_xids = nlohmann::json::array();
  for (const auto& xid : s.other_xids) other_xids.push_back(xid_json(xid));
  const nlohmann::json cpu = {{"enabled", s.cpu.enabled},
                              {"threads", s.cpu.threads},
                              {"isa", text_or_null(s.cpu.isa)},
                              {"vector_bits", s.cpu.vector_bits},
                              {"fused", s.cpu.fused},
                              {"precision", text_or_null(s.cpu.precision)},
                              {"sustained_gflops", optional_json(s.cpu.sustained_gflops)},
                              {"ceiling", ceiling_json(s.cpu.ceiling)},
                              {"ceiling_unknown", text_or_null(s.cpu.ceiling.unknown_reason)},
                              {"sanity_bound", s.cpu.sanity_bound ? nlohmann::json(*s.cpu.sanity_bound)
                                                                  : nlohmann::json(nullptr)},
                              {"percent_of_ceiling", optional_json(s.cpu.percent_of_ceiling)},
                              {"wrong_results", s.cpu.wrong_results},
                              {"injected_faults", s.cpu.injected_faults},
                              {"mean_util_pct", optional_json(s.cpu.mean_util_pct)},
                              {"max_temp_c", optional_json(s.cpu.max_temp_c)},
                              {"mean_package_w", optional_json(s.cpu.mean_package_w)},
                              {"max_package_w", optional_json(s.cpu.max_package_w)},
                              {"error", text_or_null(s.cpu.error)},
                              {"verdict", s.cpu.enabled ? nlohmann::json(s.cpu.verdict) : nlohmann::json(nullptr)}};
  const nlohmann::json rules = {{"warmup_s", s.rules.warmup_s},
                                {"slow_tolerance_pct", s.rules.slow_tolerance_pct},
                                {"busy_util_pct", s.rules.busy_util_pct},
                                {"loaded_power_fraction", s.rules.loaded_power_fraction},
                                {"clock_cv_pct", s.rules.clock_cv_pct}};
  return {{"schema", "pipecheck.stress_summary"},
          {"version", kStressSummarySchemaVersion},
          {"host", s.host},
          {"started_utc", s.started_utc},
          {"ended_utc", s.ended_utc},
          {"planned_s", s.planned_s},
          {"duration_s", s.duration_s},
          {"profile", s.profile},
          {"period_s", s.period_s},
          {"until_failure", s.until_failure},
          {"stopped_by", s.stopped_by},
          {"dtype", s.dtype},
          {"interval_s", s.interval_s},
          {"rules", rules},
          {"gpus", gpus},
          {"cpu", cpu},
          {"median_tflops", optional_json(s.median_tflops)},
          {"slow_gpus", s.slow_gpu_indices},
          {"other_xids", other_xids},
          {"notes", s.notes},
          {"inject_faults", s.inject_faults},
          {"verdict", s.verdict},
          {"reasons", s.reasons},
          {"warnings", s.warnings},
          {"exit_code", s.exit_code}};
}

namespace {

// "ceiling 473.6 GFLOP/s = ...: 62% of it", or "ceiling unknown: why; sanity bound ...: 23% of it".
std::string ceiling_line(const CeilingResult& ceiling, const std::optional<Ceiling>& sanity_bound,
                         const std::optional<double>& percent) {
  const std::string share = percent ? ": " + fixed(*percent, 0) + "% of it" : std::string();
  if (ceiling.ceiling) return "ceiling " + ceiling.ceiling->derivation + share;
  std::string line = "ceiling unknown: " + ceiling.unknown_reason;
  if (sanity_bound) line += "; sanity bound " + sanity_bound->derivation + share;
  return line;
}

}  // namespace

std::string render_stress_summary(const StressSummary& s) {
  std::ostringstream out;
  out << "stress: " << fixed(s.duration_s, 0) << " s, profile " << s.profile << ", stopped by " << s.stopped_by << "\n";
  for (const auto& gpu : s.gpus) {
    out << "  gpu" << gpu.index << " " << gpu.bus_id << (gpu.name.empty() ? "" : " " + gpu.name) << ": "
        << (gpu.sustained_tflops ? fixed(*gpu.sustained_tflops, 1) + " TFLOP/s" : "no sustained rate")
        << ", wrong " << gpu.wrong_results << ", max " << (gpu.max_temp_c ? fixed(*gpu.max_temp_c, 0) + " C" : "- C");
    if (gpu.mean_power_w && gpu.power_limit_w) {
      out << ", power " << fixed(*gpu.mean_power_w, 0) << "/" << fixed(*gpu.power_limit_w, 0) << " W";
    }
    if (gpu.sm_clock) out << ", SM " << fixed(gpu.sm_clock->mean_mhz, 0) << " MHz";
    out << "  " << gpu.verdict << "\n";
    out << "    " << ceiling_line(gpu.ceiling, std::nullopt, gpu.percent_of_ceiling) << "\n";
  }
  if (s.cpu.enabled) {
    out << "  cpu " << s.cpu.threads << " threads, " << s.cpu.isa_display << " " << s.cpu.precision << ": "
        << (s.cpu.sustained_gflops ? fixed(*s.cpu.sustained_gflops, 1) + " GFLOP/s" : "no sustained rate")
        << ", util " << (s.cpu.mean_util_pct ? fixed(*s.cpu.mean_util_pct, 0) + "%" : "-")
        << ", max " << (s.cpu.max_temp_c ? fixed(*s.cpu.max_temp_c, 0) + " C" : "- C")
        << ", package " << (s.cpu.mean_package_w ? fixed(*s.cpu.mean_package_w, 0) + " W" : "- W")
        << ", wrong " << s.cpu.wrong_results << "  " << s.cpu.verdict << "\n";
    out << "    " << ceiling_line(s.cpu.ceiling, s.cpu.sanity_bound, s.cpu.percent_of_ceiling) << "\n";
  }
  for (const auto& warning : s.warnings) out << "  warning: " << warning << "\n";
  out << "verdict: " << s.verdict;
  for (const auto& reason : s.reasons) out << "\n  " << reason;
  out << "\n";
  return out.str();
}

}  // namespace pipecheck
