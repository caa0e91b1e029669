// When noise could have produced a verdict, the judge says `inconclusive` with the reason, never
// `fail` (core/outcome.hpp): a failure measured while other processes used the CPU beyond the
// profile's limit (conditions.other_cpu_max_percent), while the hypervisor stole CPU time beyond
// conditions.steal_max_percent, or while another process held a GPU a GPU figure ran on; and a
// figure whose spread (the median's confidence interval) straddles its threshold, whatever side
// the median fell on. Kept apart from judge.cpp so its rules read in one place.
#pragma once

#include <optional>
#include <string>

#include "core/probe_outcome.hpp"
#include "judge/profile.hpp"
#include "report/verdict.hpp"

namespace pipecheck {

inline constexpr const char* kOtherCpuKey = "conditions.other_cpu_max_percent";
inline constexpr const char* kStealKey = "conditions.steal_max_percent";

// Why the conditions `probe` ran under could have produced a failure of `m` ("other processes
// used 187% of one core (stress-ng (pid 812) 98%) during the probe, more than the 20% allowed"),
// with the profile line that set the limit in `rule`; nullopt when they could not.
std::optional<std::string> busy_reason(const ProbeOutcome& probe, const Measurement& m, const Profile& profile,
                                       std::string& rule);

// A failed verdict on `m` taken under busy conditions turns inconclusive, its explanation kept
// after the reason; one already inconclusive (its spread straddles the threshold) names the load
// too. Others (pass, warn, invalid, a crashed probe) are returned as they are.
Judgement judge_under_conditions(Judgement judgement, const ProbeOutcome& probe, const Measurement& m,
                                 const Profile& profile);

// "the spread 55.2% - 63.1% (95% interval of the median) straddles the 60% minimum" when the
// interval [low, high] holds the minimum with room on both sides; nullopt otherwise or when
// there is no interval.
std::optional<std::string> spread_straddles(const std::optional<double>& low, const std::optional<double>& high,
                                            double minimum, const std::string& unit, double coverage);

}  // namespace pipecheck
