// One key an acceptance profile may set: its name, the kind of value and what it means. Each
// stage's record (core/stage_spec) lists its keys; the profile (judge/profile) reads them.
#pragma once

#include <string>

namespace pipecheck {

// What a key's value means. Every key accepts `off` (no threshold: its measurements are judged
// `info`) except warn_margin_percent.
enum class ProfileValueKind {
  percent,  // 0..100: minimum % of the ceiling ("compute.bf16_min_percent = 70")
  count,    // a non-negative whole number ("stress.wrong_results_max = 0")
  number,   // a non-negative figure in the unit the key names ("storage.rand_read_min_iops")
  policy,   // the verdict a fact gets: fail | warn | info ("pcie.link_downtrained = fail")
};

struct ProfileKeySpec {
  std::string name;     // "compute.bf16_min_percent"
  ProfileValueKind kind;
  std::string meaning;  // one line for `pipecheck profile --keys` and the docs
};

}  // namespace pipecheck
