// Whether the repetitions a probe has so far already decide its verdicts, asked by the stopping
// rule (core/stopping_rule) between rounds. The probe's runs are read, given their ceilings and
// judged exactly as `pipecheck run` will (report/attach_ceilings, judge/judge_measurements), once
// with each figure at the low end of its median's confidence interval and once at the high end
// (a thread-scaling figure: the ends of its pair-by-pair efficiencies). A figure is decided when
// both ends get the same pass, warn or fail: more repetitions cannot change it, only narrow it.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "core/inventory.hpp"
#include "core/stopping_rule.hpp"
#include "judge/profile.hpp"

namespace pipecheck {

class VerdictDecider {
 public:
  VerdictDecider(std::string stage, std::string probe, Inventory inventory, Profile profile);
  // The decision per measurement key for each figure a check judges; figures no threshold
  // judges (info) are left out. Throws std::runtime_error when the text is not benchmark JSON.
  std::map<std::string, CaseDecision> decide(const std::string& benchmark_json) const;

 private:
  std::string stage_, probe_;
  Inventory inventory_;
  Profile profile_;
};

// The decider for `--pipecheck_verdict_inventory=FILE` (`--pipecheck_verdict_profile=FILE`, else
// the default profile). Throws UsageError naming the file when it cannot be read as one.
VerdictDecider load_verdict_decider(const std::string& stage, const std::string& probe,
                                    const std::filesystem::path& inventory_path,
                                    const std::filesystem::path& profile_path);

}  // namespace pipecheck
