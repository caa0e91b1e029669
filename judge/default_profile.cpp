// The acceptance profile pipecheck ships, as text (so `pipecheck profile --show` can print it and
// a user can copy it), and the table of every key a profile may set, with what it means. Each
// stage's part of both is its record's (StageSpec::profile_text and profile_keys in stages/).
#include "judge/profile.hpp"

#include "core/stage_registry.hpp"

namespace pipecheck {

// How a profile is read (decided here, documented once):
// - `--profile FILE` OVERLAYS the default: FILE's keys replace the default's, every other key
//   keeps its default. To drop a default threshold, set it to `off` (its measurements are then
//   judged `info`). So a user's file holds only what differs from this one.
// - Percent thresholds are minimum % of the measurement's ceiling (the ceiling and its
//   derivation come from ceilings/ceilings). With the warn margin M percentage points:
//       % <  threshold                 -> fail
//       threshold <= % < threshold + M -> warn   (exactly at the threshold is warn, not pass)
//       % >= threshold + M             -> pass
//   With M = 0 exactly at the threshold passes.
// - A measurement whose stage/params no key covers, or whose ceiling is unknown, is `info`.
// - Unknown keys, bad values and a key set twice in one file are errors naming the line.
namespace {

// The profile's opening: how it is read and the warn margin.
constexpr const char* kProfileHead = R"(# pipecheck default acceptance profile.
# key = value; '#' starts a comment; `off` drops a threshold (judged info instead).
# A user's --profile file is overlaid on this one: it sets only what it changes.

# Percentage points above a threshold that are still 'warn' (too close to call a pass).
warn_margin_percent = 5

)";

// After the stages' sections: the conditions around each probe and the probes' own failures.
constexpr const char* kProfileTail = R"(# The conditions a probe ran under (measured by the driver around each probe). A failure
# measured while other processes used more CPU than this (% of one core: 200 = two cores busy),
# or while the hypervisor stole more than this share of the CPUs' time, is judged inconclusive
# (rerun on a quiet machine), never fail; so is a GPU figure measured while another process
# held the GPU, and any figure whose spread straddles its threshold. The quiet-machine check
# before the run warns above the same CPU limit. `off` drops a limit.
conditions.other_cpu_max_percent = 20
conditions.steal_max_percent = 10

# Probes: a case that reported an error inside an otherwise working probe, and a measurement
# whose result verification failed (verified = no): fail | warn | info.
probe.case_error = warn
probe.unverified = fail
)";

}  // namespace

std::string default_profile_text() {
  std::string text = kProfileHead;
  for (const StageSpec& stage : stage_registry()) {
    if (!stage.profile_text.empty()) text += stage.profile_text + "\n";
  }
  return text + kProfileTail;
}

std::vector<ProfileKeySpec> profile_keys() {
  using K = ProfileValueKind;
  std::vector<ProfileKeySpec> all = {
        {"warn_margin_percent", K::percent, "percentage points above a threshold still judged warn"},
    };
    for (const StageSpec& stage : stage_registry()) all.insert(all.end(), stage.profile_keys.begin(), stage.profile_keys.end());
    all.insert(all.end(), {
        {"conditions.other_cpu_max_percent", K::number,
         "other processes' CPU during a probe, % of one core, above which its failures are inconclusive"},
        {"conditions.steal_max_percent", K::percent,
         "CPU time stolen by the hypervisor during a probe, %, above which its failures are inconclusive"},
        {"probe.case_error", K::policy, "verdict for a case that reported an error"},
        {"probe.unverified", K::policy, "verdict for a measurement whose result check failed"},
    });
  return all;
}

}  // namespace pipecheck
