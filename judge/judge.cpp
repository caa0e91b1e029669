// The judge: turns ceilings and percentages into verdicts by the acceptance profile. Which
// profile keys govern a measurement is its stage's rule (StageSpec::checks in stages/).
#include "judge/judge.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "ceilings/ceilings.hpp"
#include "ceilings/measurement_gpu.hpp"
#include "core/stage_names.hpp"
#include "core/stage_registry.hpp"
#include "core/figure_text.hpp"
#include "judge/findings.hpp"
#include "judge/inconclusive.hpp"
#include "judge/inventory_verdicts.hpp"
#include "ceilings/physical_ceiling.hpp"

namespace pipecheck {

namespace {

struct Context {
  const Inventory& inventory;
  const Siblings& siblings;  // the same probe's measurements, indexed once a probe
  const PhysicalCeilings& physical;
};

// Not a profile key: no profile may let a figure above the hardware pass.
std::string physical_ceiling_rule() {
  return "physical ceiling: above " + plain_number(kInvalidAbovePercent) + "% is invalid";
}

std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

// One check's outcome; empty when its key is off (then it does not take part).
struct CheckOutcome {
  Verdict verdict;
  std::string rule;
  std::string explanation;
};

std::string ceiling_words(const Measurement& m) {
  const Ceiling& c = *m.ceiling.ceiling;
  return figure(m.stats.median, m.unit) + " is " + percent_text(*m.percent_of_ceiling) + " of " +
         figure(c.value, c.unit) + " (" + c.basis + ")";
}

// The spread of the % of ceiling (the median's interval held against the ceiling) around a minimum.
std::optional<std::string> percent_spread_straddles(const Measurement& m, double minimum) {
  const double coverage = m.median_interval ? m.median_interval->coverage : 0;
  return spread_straddles(m.percent_low, m.percent_high, minimum, "%", coverage);
}

// The spread of a figure judged by value; a figure derived from the median (IOPS from GB/s)
// scales its interval with it.
std::optional<std::string> value_spread_straddles(const Check& check, const Measurement& m, double minimum) {
  if (!m.median_interval || m.stats.median == 0) return std::nullopt;
  const double scale = check.value / m.stats.median;
  return spread_straddles(m.median_interval->low * scale, m.median_interval->high * scale, minimum, check.unit,
                          m.median_interval->coverage);
}

std::optional<CheckOutcome> run_check(const Check& check, const Measurement& m, const Profile& profile) {
  const double margin = profile.warn_margin_percent();
  const std::string rule = profile.rule(check.key);
  switch (check.kind) {
    case CheckKind::percent_min: {
      const auto minimum = profile.threshold(check.key);
      if (!minimum) return std::nullopt;
      if (!m.percent_of_ceiling || !m.ceiling.ceiling) {
        const std::string why = m.ceiling.ceiling ? "the ceiling is in " + m.ceiling.ceiling->unit + ", not " + m.unit
                                                  : m.ceiling.unknown_reason;
        return CheckOutcome{Verdict::info, rule, "no % of ceiling to judge: " + why};
      }
      const Verdict verdict = verdict_for_percent(*m.percent_of_ceiling, *minimum, margin);
      std::string text = ceiling_words(m);
      if (const auto straddle = percent_spread_straddles(m, *minimum)) return CheckOutcome{Verdict::inconclusive, rule, *straddle + "; " + text};
      if (verdict == Verdict::fail) {
        text += ": below the " + plain_number(*minimum) + "% minimum";
      } else if (verdict == Verdict::warn) {
        text += ": within " + plain_number(margin) + " points above the " + plain_number(*minimum) + "% minimum";
      } else {
        text += ": at least " + plain_number(*minimum + margin) + "% (" + plain_number(*minimum) + "% minimum + " +
                plain_number(margin) + " warn margin)";
      }
      if (*m.percent_of_ceiling > kInvalidAbovePercent && m.ceiling.ceiling->basis == "linear scaling") {
        text += "; above linear scaling, which noise in the 1-thread reference allows";
      }
      return CheckOutcome{verdict, rule, text};
    }
    case CheckKind::value_min: {
      const auto minimum = profile.threshold(check.key);
      if (!minimum) return std::nullopt;
      const double pass_from = *minimum * (1 + margin / 100);
      const Verdict verdict = check.value < *minimum ? Verdict::fail
                              : check.value < pass_from ? Verdict::warn
                                                        : Verdict::pass;
      std::string text = figure(check.value, check.unit);
      if (const auto straddle = value_spread_straddles(check, m, *minimum)) return CheckOutcome{Verdict::inconclusive, rule, *straddle + "; " + text};
      text += verdict == Verdict::fail ? " is below the minimum " + figure(*minimum, check.unit)
              : verdict == Verdict::warn ? " is within " + plain_number(margin) + "% above the minimum " + figure(*minimum, check.unit)
                                         : " is at least " + figure(pass_from, check.unit) + " (minimum " + figure(*minimum, check.unit) + " + " + plain_number(margin) + "%)";
      return CheckOutcome{verdict, rule, text};
    }
    case CheckKind::count_max: {
      const auto maximum = profile.threshold(check.key);
      if (!maximum) return std::nullopt;
      const bool over = check.value > *maximum;
      return CheckOutcome{over ? Verdict::fail : Verdict::pass, rule,
                          check.fact + (over ? ", more than " : ", at most ") + plain_number(*maximum) + " allowed"};
    }
    case CheckKind::policy: {
      if (!profile.has(check.key)) return std::nullopt;
      return CheckOutcome{profile.policy(check.key), rule, check.fact};
    }
  }
  return std::nullopt;
}

// Without a decisive check, say what there is: the % of ceiling, or why there is none.
std::string info_words(const Measurement& m) {
  if (m.percent_of_ceiling && m.ceiling.ceiling) return ceiling_words(m);
  if (m.ceiling.ceiling) return figure(m.stats.median, m.unit) + " against " + figure(m.ceiling.ceiling->value, m.ceiling.ceiling->unit);
  return figure(m.stats.median, m.unit) + "; " + (m.ceiling.unknown_reason.empty() ? "no ceiling" : m.ceiling.unknown_reason);
}

Judgement judge_measurement(const Measurement& m, const Context& context, const Profile& profile) {
  Judgement judgement{m.key, m.stage, m.what, Verdict::info, "", ""};
  StageChecks stage_checks;
  if (const StageSpec* stage = find_stage(m.stage)) {
    stage_checks = stage->checks(m, StageContext{context.inventory, context.siblings});
  } else {
    stage_checks.not_judged = "no profile rule for stage '" + m.stage + "'";
  }
  if (param(m, "verified") == "no") {
    stage_checks.checks.push_back({CheckKind::policy, "probe.unverified", 0, "", "its result check failed (verified = no)"});
  }
  std::vector<CheckOutcome> outcomes;
  // Above the physical ceiling nothing else matters: not a pass however the thresholds read it.
  if (auto violation = context.physical.violation(m)) {
    outcomes.push_back({Verdict::invalid, physical_ceiling_rule(), std::move(*violation)});
  }
  for (const auto& check : stage_checks.checks) {
    if (auto outcome = run_check(check, m, profile)) outcomes.push_back(std::move(*outcome));
  }
  if (outcomes.empty()) {
    std::string why = stage_checks.not_judged;
    if (why.empty() && !stage_checks.checks.empty()) {
      why = "no threshold: " + stage_checks.checks.front().key + " is off";
    }
    judgement.explanation = info_words(m) + (why.empty() ? "" : " (" + why + ")");
    return judgement;
  }
  // The worst check decides and names its rule; the others are said too.
  const auto decisive = std::max_element(outcomes.begin(), outcomes.end(), [](const CheckOutcome& a, const CheckOutcome& b) {
    return worse(a.verdict, b.verdict) == b.verdict && a.verdict != b.verdict;
  });
  judgement.verdict = decisive->verdict;
  judgement.rule = decisive->rule;
  judgement.explanation = decisive->explanation;
  for (const auto& other : outcomes) {
    if (&other != &*decisive) judgement.explanation += "; " + other.explanation;
  }
  return judgement;
}

std::string gpu_subject(const GpuInfo& gpu, std::size_t position) {
  return "inventory/gpu" + std::to_string(gpu.cuda_index >= 0 ? gpu.cuda_index : static_cast<int>(position));
}

std::string link_words(double gts, int width) { return gts_text(gts) + " GT/s x" + std::to_string(width); }

// The best pinned copy a PCIe probe measured on this GPU, if any.
std::optional<double> best_pinned_copy(const Report& report, const Inventory& inventory, const GpuInfo& gpu) {
  std::optional<double> best;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      if (m.stage != stage_name::pcie || m.unit != "GB/s" || param(m, "host_memory") != "pinned" || param(m, "direction") == "bidir") continue;
      if (find_gpu(m, inventory) != &gpu) continue;
      best = std::max(best.value_or(0), m.stats.median);
    }
  }
  return best;
}

// GPUs lower their link speed when idle; the inventory reads the link at idle, so a slower
// (not narrower) link is only a fault when a copy under load stays within it.
Judgement judge_gpu_link(const Report& report, const Inventory& inventory, const Profile& profile,
                         const GpuInfo& gpu, std::size_t position) {
  const PcieLink& link = gpu.pcie;
  const std::string key = "pcie.link_downtrained";
  Judgement judgement{gpu_subject(gpu, position) + "/pcie_link", stage_name::pcie,
                      "GPU " + std::to_string(gpu.cuda_index) + " PCIe link" + (gpu.pci_bdf.empty() ? "" : " (" + gpu.pci_bdf + ")"),
                      Verdict::info, profile.rule(key), ""};
  if (!link.current_gts || !link.current_width || !link.max_gts || !link.max_width) {
    judgement.explanation = "link speed or width not reported";
    return judgement;
  }
  const std::string now = link_words(*link.current_gts, *link.current_width);
  const std::string max = link_words(*link.max_gts, *link.max_width);
  if (!link.downtrained()) {
    judgement.verdict = Verdict::pass;
    judgement.explanation = "trained at its maximum, " + max;
    return judgement;
  }
  const Verdict policy = profile.policy(key);
  const bool narrower = *link.current_width < *link.max_width;
  judgement.explanation = "trained at " + now + " against a maximum of " + max;
  if (narrower) {
    judgement.verdict = policy;
    judgement.explanation += ": fewer lanes, which idle power saving does not explain";
    return judgement;
  }
  const auto best = best_pinned_copy(report, inventory, gpu);
  const CeilingResult idle_ceiling = pcie_link_ceiling(link);
  if (best && idle_ceiling.ceiling) {
    if (*best > 1.05 * idle_ceiling.ceiling->value) {
      judgement.verdict = Verdict::info;
      judgement.explanation += " at idle, but pinned copies reached " + figure(*best, "GB/s") + ", above that link's " +
                               figure(idle_ceiling.ceiling->value, "GB/s") + ": it trains up under load";
      return judgement;
    }
    judgement.verdict = policy;
    judgement.explanation += "; under load pinned copies stayed at " + figure(*best, "GB/s") + ", within the slower link's " +
                             figure(idle_ceiling.ceiling->value, "GB/s");
    return judgement;
  }
  judgement.verdict = worse(policy, Verdict::warn) == policy ? Verdict::warn : policy;
  judgement.explanation += ", read at idle (GPUs slow idle links to save power); run the pcie probe to see it under load";
  return judgement;
}

// A case that recorded no timing ("key: text" from the probe's skipped_cases or wrong_results):
// judged under its own key, so the report says which case and why.
Judgement case_judgement(const std::string& entry, const ProbeOutcome& probe, Verdict verdict, std::string rule,
                         const std::string& lead) {
  const auto colon = entry.find(": ");
  const std::string key = colon == std::string::npos ? "probe/" + probe.stage : entry.substr(0, colon);
  const std::string text = colon == std::string::npos ? entry : entry.substr(colon + 2);
  return {key, probe.stage, key, verdict, std::move(rule), lead + text};
}

}  // namespace

Verdict verdict_for_percent(double percent, double minimum_percent, double warn_margin_percent) {
  if (percent < minimum_percent) return Verdict::fail;
  if (percent < minimum_percent + warn_margin_percent) return Verdict::warn;
  return Verdict::pass;
}

std::vector<Judgement> judge_measurements(const Report& report, const Inventory& inventory, const Profile& profile) {
  std::vector<Judgement> judgements;
  const PhysicalCeilings physical(inventory);
  for (const auto& probe : report.probes) {
    const std::string subject = "probe/" + probe.stage;
    switch (probe.status) {
      case ProbeStatus::skipped:
      case ProbeStatus::not_built:
        judgements.push_back({subject, probe.stage, probe.probe, Verdict::skipped, "", probe.reason});
        continue;
      case ProbeStatus::failed:
        judgements.push_back({subject, probe.stage, probe.probe, Verdict::fail, "a failed probe is a failed check",
                              probe.probe + " failed: " + (probe.reason.empty() ? "no reason recorded" : probe.reason),
                              true});
        continue;
      case ProbeStatus::interrupted:
        judgements.push_back({subject, probe.stage, probe.probe, Verdict::skipped, "",
                              probe.probe + " was interrupted before it finished" +
                                  (probe.reason.empty() ? "" : ": " + probe.reason)});
        continue;
      case ProbeStatus::ok:
        break;
    }
    if (!probe.case_errors.empty()) {
      const std::string key = "probe.case_error";
      judgements.push_back({subject + "/case_errors", probe.stage, probe.probe, profile.policy(key, Verdict::warn),
                            profile.rule(key),
                            std::to_string(probe.case_errors.size()) + " case(s) reported an error, first: " +
                                probe.case_errors.front()});
    }
    for (const auto& entry : probe.skipped_cases) {
      judgements.push_back(case_judgement(entry, probe, Verdict::skipped, "", "skipped: "));
    }
    const std::string unverified = "probe.unverified";
    for (const auto& entry : probe.wrong_results) {
      judgements.push_back(case_judgement(entry, probe, profile.policy(unverified), profile.rule(unverified),
                                          "its verifier caught wrong results: "));
    }
    const Siblings siblings(probe.measurements);
    const Context context{inventory, siblings, physical};
    for (const auto& m : probe.measurements) {
      judgements.push_back(judge_under_conditions(judge_measurement(m, context, profile), probe, m, profile));
    }
  }
  return judgements;
}

std::vector<Judgement> judge_inventory(const Report& report, const Inventory& inventory, const Profile& profile) {
  std::vector<Judgement> judgements = judge_gpus_on_bus(inventory, profile);
  for (auto& j : judge_cpu_allowance(inventory)) judgements.push_back(std::move(j));
  for (std::size_t i = 0; i < inventory.gpus.size(); ++i) {
    // A GPU only the bus lists has no link facts of the driver's to judge.
    if (inventory.gpus[i].seen_by.size() == 1 && inventory.gpus[i].seen_by.front() == "pci") continue;
    judgements.push_back(judge_gpu_link(report, inventory, profile, inventory.gpus[i], i));
  }
  const SoftwareStack& software = inventory.software;
  const std::string key = "gpu.cuda_mismatch";
  if (const auto mismatch = software.cuda_mismatch()) {
    judgements.push_back({"inventory/software/cuda", stage_name::compute, "CUDA driver and runtime", profile.policy(key),
                          profile.rule(key), *mismatch + ": CUDA calls fail or fall back on this machine"});
  } else if (software.driver_cuda_version && software.runtime_cuda_version) {
    judgements.push_back({"inventory/software/cuda", stage_name::compute, "CUDA driver and runtime", Verdict::pass, profile.rule(key),
                          "driver supports CUDA " + std::to_string(*software.driver_cuda_version / 1000) + "." +
                              std::to_string(*software.driver_cuda_version % 1000 / 10) + ", built with " +
                              std::to_string(*software.runtime_cuda_version / 1000) + "." +
                              std::to_string(*software.runtime_cuda_version % 1000 / 10)});
  }
  return judgements;
}

Judged judge(const Report& report, const Inventory& inventory, const Profile& profile,
             const std::optional<Workload>& workload) {
  Judged judged;
  judged.judgements = judge_measurements(report, inventory, profile);
  for (auto& j : judge_inventory(report, inventory, profile)) judged.judgements.push_back(std::move(j));
  judged.overall = judged.judgements.empty() ? Verdict::info : Verdict::skipped;
  for (const auto& j : judged.judgements) judged.overall = worse(judged.overall, j.verdict);
  judged.findings = find_findings(report, inventory);
  align_finding_severities(judged);
  if (workload) judged.budget = pipeline_budget(report, inventory, *workload);
  return judged;
}

void align_finding_severities(Judged& judged) {
  std::map<std::string, Verdict> verdicts;
  for (const auto& j : judged.judgements) verdicts.emplace(j.subject, j.verdict);
  for (auto& finding : judged.findings) {
    for (const auto& subject : finding.evidence) {
      const auto it = verdicts.find(subject);
      if (it == verdicts.end() || severity(it->second) < severity(Verdict::warn)) continue;
      if (severity(it->second) > severity(finding.severity)) finding.severity = it->second;
    }
  }
}

int exit_code_of(const Judged& judged) { return code(exit_code_for(judged.overall)); }

}  // namespace pipecheck
