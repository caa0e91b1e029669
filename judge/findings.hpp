// Findings: what the figures mean for training, in plain words, each tied to the measurements
// (evidence subjects) behind it. One small rule function per finding, in a table.
#pragma once

#include <string>
#include <vector>

#include "core/inventory.hpp"
#include "report/report.hpp"
#include "report/verdict.hpp"

namespace pipecheck {

using FindingRule = std::vector<Finding> (*)(const Report&, const Inventory&);

struct FindingRuleEntry {
  const char* name;  // "pageable_vs_pinned": stable, for tests and docs
  FindingRule rule;
};
// Every finding rule, in the order their findings are listed.
const std::vector<FindingRuleEntry>& finding_rules();

// All findings of a report (ceilings attached), rule by rule in table order.
std::vector<Finding> find_findings(const Report& report, const Inventory& inventory);

}  // namespace pipecheck
