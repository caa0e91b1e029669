// The judge (stub while it is written).
#include "reports/judge.hpp"

#include "reports/findings.hpp"

namespace pipecheck {

Verdict verdict_for_percent(double percent, double minimum_percent, double warn_margin_percent) {
  if (percent < minimum_percent) return Verdict::fail;
  if (percent < minimum_percent + warn_margin_percent) return Verdict::warn;
  return Verdict::pass;
}

std::vector<Judgement> judge_measurements(const Report&, const Inventory&, const Profile&) { return {}; }
std::vector<Judgement> judge_inventory(const Report&, const Inventory&, const Profile&) { return {}; }

Judged judge(const Report& report, const Inventory& inventory, const Profile& profile,
             const std::optional<Workload>& workload) {
  Judged judged;
  judged.judgements = judge_measurements(report, inventory, profile);
  for (auto& j : judge_inventory(report, inventory, profile)) judged.judgements.push_back(std::move(j));
  for (const auto& j : judged.judgements) judged.overall = worse(judged.overall, j.verdict);
  judged.findings = find_findings(report, inventory);
  if (workload) judged.budget = pipeline_budget(report, inventory, *workload);
  return judged;
}

int exit_code_of(const Judged& judged) { return judged.overall == Verdict::fail ? 1 : 0; }

}  // namespace pipecheck
