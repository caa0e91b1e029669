// Findings in plain words (stub while the rules are written).
#include "reports/findings.hpp"

namespace pipecheck {

const std::vector<FindingRuleEntry>& finding_rules() {
  static const std::vector<FindingRuleEntry> rules = {};
  return rules;
}

std::vector<Finding> find_findings(const Report& report, const Inventory& inventory) {
  std::vector<Finding> all;
  for (const auto& entry : finding_rules()) {
    for (auto& finding : entry.rule(report, inventory)) all.push_back(std::move(finding));
  }
  return all;
}

}  // namespace pipecheck
