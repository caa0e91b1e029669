// The typed record every probe result becomes: a stable key, a unit, the statistics over the
// repetitions, and the parameters the report needs to find its ceiling. Renderers read these.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

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
  std::string stage;  // "hostmem", "storage", "compute", ...
  std::string what;   // display name: "memcpy, 2 threads"
  std::string unit;   // "GB/s", "TFLOP/s", "IOPS", "images/s"
  Statistics stats;
  std::map<std::string, std::string> params;  // "threads":"2", "buffer_bytes":"1073741824"
  // Filled by the report stage, never by a probe.
  CeilingResult ceiling;
  std::optional<double> percent_of_ceiling;
};

Statistics summarize(std::vector<double> samples);

}  // namespace pipecheck
