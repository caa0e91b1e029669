// The typed record every probe result becomes: a stable key, a unit, the statistics over the
// repetitions, and the parameters the report needs to find its ceiling. Renderers read these.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/median_interval.hpp"

namespace pipecheck {

struct Statistics {
  double median = 0;
  double min = 0;
  double max = 0;
  int samples = 0;
};

// The theoretical or vendor ceiling a measurement is held against, with its derivation.
struct Ceiling {
  double value = 0;
  std::string unit;        // same unit as the measurement it bounds
  std::string basis;       // "vendor spec", "theoretical", "link"
  std::string derivation;  // "989.4 TFLOP/s = 132 SMs x 1830 MHz x 4096 FLOP/clk/SM (sm_90, BF16)"
};

// A ceiling, or the reason there is none ("no ceiling: virtual disk").
struct CeilingResult {
  std::optional<Ceiling> ceiling;
  std::string unknown_reason;

  static CeilingResult known(Ceiling c) { return {std::move(c), ""}; }
  static CeilingResult unknown(std::string why) { return {std::nullopt, std::move(why)}; }
};

struct Measurement {
  std::string key;    // "hostmem/memcpy/threads:2": stable across runs, the join key for compare
  std::string stage;  // a stage key of core/stage_names.hpp
  std::string what;   // display name: "memcpy, 2 threads"
  std::string unit;   // "GB/s", "TFLOP/s", "IOPS", "images/s"
  Statistics stats;
  std::map<std::string, std::string> params;  // "threads":"2", "buffer_bytes":"1073741824"
  // Every repetition's value in the order they ran (empty in reports written before they were
  // kept), why the probe stopped repeating ("converged: noise 1.4% <= 2% after 9 repetitions"),
  // and whether the thread counts of this case ran interleaved round by round, so repetition i
  // of 1 thread and of N threads were taken side by side (core/repetition_rounds).
  std::vector<double> repetitions;
  std::string stopping;
  bool interleaved = false;
  // The median's confidence interval and half its width in % of the median (core/median_interval),
  // from the repetitions; absent below 2 of them and in reports written before they were kept.
  std::optional<MedianInterval> median_interval;
  std::optional<double> noise_percent;
  // Filled by the report stage, never by a probe.
  CeilingResult ceiling;
  std::optional<double> percent_of_ceiling;
  // The % of ceiling at the ends of the median's confidence interval (for a thread-scaling
  // figure: of the pair-by-pair efficiencies), so the judge sees a spread that straddles its
  // threshold.
  std::optional<double> percent_low;
  std::optional<double> percent_high;
};

Statistics summarize(std::vector<double> samples);
// Sets median_interval and noise_percent from the repetitions.
void attach_spread(Measurement& m);

}  // namespace pipecheck
