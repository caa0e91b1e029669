// Turns a probe's Google Benchmark JSON into typed measurements: groups the repetitions of
// each case, takes median/min/max, and reads the label convention of core/probe_main.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/measurement.hpp"

namespace pipecheck {

struct ParsedBenchmarks {
  std::map<std::string, std::string> context;  // string values of the "context" object
  std::vector<Measurement> measurements;
  std::vector<std::string> case_errors;    // "key: message": the case could not run
  std::vector<std::string> skipped_cases;  // "key: reason": not applicable here, nothing timed
  std::vector<std::string> wrong_results;  // "key: detail": its verifier caught wrong data
};

// Error runs are sorted by their message's prefix (core/case_messages.hpp), once per case
// however many repetitions reported it.
// Throws std::runtime_error naming what is wrong when the text is not Google Benchmark JSON.
ParsedBenchmarks parse_benchmark_json(const std::string& text, const std::string& stage);

// The rate counters a probe may report, in the order the parser prefers them
// ("flop_per_second", "bytes_per_second", "images_per_second", ...).
std::vector<std::string> rate_counter_names();

// "hostmem/memcpy/real_time/threads:2" -> "hostmem/memcpy/threads:2": drops the parts that
// are about timing, not about what was measured, so keys stay stable across flags.
std::string measurement_key(const std::string& run_name);

}  // namespace pipecheck
