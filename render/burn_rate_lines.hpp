// The burn rates of a stress run held against their ceilings, as the report shows them: one
// line a burn (the CPU burn, each GPU) from the run's summary.json, with the ceiling's
// derivation, or why there is none and the sanity bound the CPU rate is held against then.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pipecheck {

// "CPU burn, 2 threads of avx512 fp64: 88.1 GFLOP/s, 23% of the sanity bound 384 GFLOP/s = ...;
// ceiling unknown: no cpufreq ... (verdict pass)". Burns without a sustained rate say so.
std::vector<std::string> burn_rate_lines(const nlohmann::json& summary);

}  // namespace pipecheck
