// The judge: turns ceilings and percentages into verdicts by the acceptance profile. Which
// profile key governs a measurement is data (one entry per stage in kStageChecks below).
#include "reports/judge.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "reports/ceilings.hpp"
#include "reports/figure_text.hpp"
#include "reports/findings.hpp"
#include "reports/inconclusive.hpp"
#include "reports/inventory_verdicts.hpp"
#include "reports/physical_ceiling.hpp"

namespace pipecheck {

namespace {

// One test a measurement is put to.
enum class CheckKind {
  percent_min,  // percent_of_ceiling >= the key's minimum (with the warn margin)
  value_min,    // the figure itself >= the key's minimum (with the warn margin, relative)
  count_max,    // a count <= the key's maximum; no warn band
  policy,       // a fact that holds: the key's verdict
};

struct Check {
  CheckKind kind;
  std::string key;
  double value = 0;  // value_min and count_max: the figure; unused otherwise
  std::string unit;  // value_min: the figure's unit
  std::string fact;  // policy and count_max: the fact in words
};

// What a stage's rule says about one measurement: the checks, or why none applies.
struct StageChecks {
  std::vector<Check> checks;
  std::string not_judged;  // "single-thread figures are not judged" when checks is empty
};

// What a measurement is judged beside, gathered once a probe: looking it up sibling by sibling
// for every measurement made `report` quadratic (a 50 MB report.json took over a minute).
struct SiblingFacts {
  std::map<std::string, int> most_threads_by_op;                 // hostmem: op -> most threads
  std::map<std::string, std::uint64_t> largest_bytes_by_series;  // comm: series -> largest size
};

struct Context {
  const Inventory& inventory;
  const std::vector<Measurement>& siblings;  // the same probe's measurements
  const PhysicalCeilings& physical;
  const SiblingFacts& facts;
};

using StageRule = StageChecks (*)(const Measurement&, const Context&);

// Not a profile key: no profile may let a figure above the hardware pass.
std::string physical_ceiling_rule() {
  return "physical ceiling: above " + plain_number(kInvalidAbovePercent) + "% is invalid";
}

std::string param(const Measurement& m, const std::string& name) { return param_or_empty(m.params, name); }

StageChecks percent_check(const std::string& key) { return {{{CheckKind::percent_min, key, 0, "", ""}}, ""}; }
StageChecks not_judged(const std::string& why) { return {{}, why}; }

StageChecks compute_checks(const Measurement& m, const Context&) {
  const auto dtype = parse_dtype(param(m, "dtype"));
  if (!dtype) return not_judged("no dtype param, so no compute threshold");
  return percent_check(std::string("compute.") + to_string(*dtype) + "_min_percent");
}

StageChecks memory_checks(const Measurement& m, const Context&) {
  const std::string op = param(m, "op");
  if (op == "copy" || op == "read" || op == "write" || op == "triad") {
    return percent_check("memory.hbm_" + op + "_min_percent");
  }
  if (op == "d2d_memcpy") return percent_check("memory.d2d_memcpy_min_percent");
  return not_judged("no threshold for memory op '" + op + "'");
}

StageChecks pcie_checks(const Measurement& m, const Context&) {
  const std::string direction = param(m, "direction");
  const std::string memory = param(m, "host_memory");
  if (memory != "pinned") {
    return not_judged((memory.empty() ? std::string("unnamed") : memory) +
                      " host memory is compared with pinned in the findings, not judged");
  }
  if (param(m, "numa") == "remote") {
    return not_judged("copies from the far NUMA node are compared in the findings, not judged");
  }
  if (direction == "h2d" || direction == "d2h" || direction == "bidir") {
    return percent_check("pcie.pinned_" + direction + "_min_percent");
  }
  return not_judged("no threshold for direction '" + direction + "'");
}

std::uint64_t bytes_param(const Measurement& m) {
  const std::string text = param(m, "bytes");
  return text.empty() || text.find_first_not_of("0123456789") != std::string::npos ? 0 : std::stoull(text);
}

// The series a comm measurement belongs to: its stage, collective, dtype and job shape.
std::string comm_series(const Measurement& m) {
  std::string series = m.stage;
  for (const char* name : {"collective", "dtype", "ranks", "nodes"}) {
    series += '\n';  // appended apart: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
    series += param(m, name);
  }
  return series;
}

SiblingFacts sibling_facts(const std::vector<Measurement>& siblings) {
  SiblingFacts facts;
  for (const auto& other : siblings) {
    int& most = facts.most_threads_by_op[other.stage + "\n" + param(other, "op")];
    most = std::max(most, int_param(other.params, "threads", 0));
    std::uint64_t& largest = facts.largest_bytes_by_series[comm_series(other)];
    largest = std::max(largest, bytes_param(other));
  }
  return facts;
}

// Small messages are latency-bound by nature (nccl-tests' busbw climbs with size), so a sweep is
// judged at its largest size, per collective, dtype and job shape.
StageChecks comm_checks(const Measurement& m, const Context& context) {
  if (param(m, "ranks") == "1") {
    return not_judged("one rank: NCCL's path and its data check only; its bus bandwidth is 0 by the formula");
  }
  const auto found = context.facts.largest_bytes_by_series.find(comm_series(m));
  const std::uint64_t largest = found == context.facts.largest_bytes_by_series.end() ? 0 : found->second;
  if (bytes_param(m) < largest) {
    return not_judged("smaller messages are latency-bound; judged at the largest size (" + std::to_string(largest) + " bytes)");
  }
  return percent_check("comm.busbw_min_percent");
}

// "seq_read", "seq" -> "seq"; "rand_read", "rand" -> "rand"; others as they are.
std::string storage_pattern(const Measurement& m) {
  const std::string pattern = param(m, "pattern");
  if (pattern == "seq_read" || pattern == "seq") return "seq";
  if (pattern == "rand_read" || pattern == "rand") return "rand";
  return pattern;
}

// Operations per second of a random-read measurement: IOPS as measured, or GB/s / block size.
std::optional<double> iops_of(const Measurement& m) {
  if (m.unit == "IOPS") return m.stats.median;
  const int bs = int_param(m.params, "bs", 0);
  if (m.unit == "GB/s" && bs > 0) return m.stats.median * 1e9 / bs;
  return std::nullopt;
}

StageChecks storage_checks(const Measurement& m, const Context&) {
  const std::string pattern = storage_pattern(m);
  StageChecks result;
  if (pattern == "seq" && m.unit == "GB/s") {
    result.checks.push_back({CheckKind::percent_min, "storage.seq_read_min_percent", 0, "", ""});
    result.checks.push_back({CheckKind::value_min, "storage.seq_read_min_gbps", m.stats.median, "GB/s", ""});
  } else if (pattern == "rand") {
    if (const auto iops = iops_of(m)) {
      result.checks.push_back({CheckKind::value_min, "storage.rand_read_min_iops", *iops, "IOPS", ""});
    }
  }
  if (result.checks.empty()) result.not_judged = "no threshold for storage pattern '" + param(m, "pattern") + "'";
  return result;
}

StageChecks decode_checks(const Measurement& m, const Context& context) {
  const int threads = int_param(m.params, "threads", 0);
  if (threads <= 1) return not_judged("the 1-thread rate is the reference the others scale from");
  const int cores = context.inventory.cpu.physical_cores.value_or(0);
  if (cores > 0 && threads > cores) {
    return not_judged(std::to_string(threads) + " threads exceed the " + std::to_string(cores) +
                      " physical cores: SMT threads share a core, so scaling is not judged");
  }
  return percent_check("decode.scaling_efficiency_min_percent");
}

StageChecks hostmem_checks(const Measurement& m, const Context& context) {
  const std::string op = param(m, "op");
  if (op != "read" && op != "write" && op != "memcpy") return not_judged("no threshold for host memory op '" + op + "'");
  const int threads = int_param(m.params, "threads", 0);
  const auto found = context.facts.most_threads_by_op.find(m.stage + "\n" + op);
  const int most = found == context.facts.most_threads_by_op.end() ? 0 : found->second;
  if (threads < most) {
    return not_judged("judged at the most threads measured (" + std::to_string(most) + "); fewer threads reach less by nature");
  }
  return percent_check("hostmem." + op + "_min_percent");
}

StageChecks stress_checks(const Measurement& m, const Context&) {
  StageChecks result;
  const std::string wrong = param(m, "wrong_results");
  if (!wrong.empty()) {
    const double count = std::atof(wrong.c_str());
    result.checks.push_back({CheckKind::count_max, "stress.wrong_results_max", count, "",
                             wrong + " wrong result" + (wrong == "1" ? "" : "s")});
  }
  const std::string slowdown = param(m, "thermal_slowdown_seconds");
  if (!slowdown.empty() && std::atof(slowdown.c_str()) > 0) {
    result.checks.push_back({CheckKind::policy, "stress.thermal_slowdown", 0, "",
                             "thermal slowdown for " + slowdown + " s during the burn"});
  }
  if (result.checks.empty()) result.not_judged = "no wrong_results or thermal_slowdown_seconds param";
  return result;
}

const std::map<std::string, StageRule>& stage_rules() {
  static const std::map<std::string, StageRule> rules = {
      {"compute", compute_checks}, {"memory", memory_checks},   {"pcie", pcie_checks},
      {"comm", comm_checks},       {"storage", storage_checks}, {"decode", decode_checks},
      {"hostmem", hostmem_checks}, {"stress", stress_checks},
  };
  return rules;
}

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
  const auto rule = stage_rules().find(m.stage);
  if (rule == stage_rules().end()) {
    stage_checks.not_judged = "no profile rule for stage '" + m.stage + "'";
  } else {
    stage_checks = rule->second(m, context);
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
      if (m.stage != "pcie" || m.unit != "GB/s" || param(m, "host_memory") != "pinned" || param(m, "direction") == "bidir") continue;
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
  Judgement judgement{gpu_subject(gpu, position) + "/pcie_link", "pcie",
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
    const SiblingFacts facts = sibling_facts(probe.measurements);
    const Context context{inventory, probe.measurements, physical, facts};
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
    judgements.push_back({"inventory/software/cuda", "compute", "CUDA driver and runtime", profile.policy(key),
                          profile.rule(key), *mismatch + ": CUDA calls fail or fall back on this machine"});
  } else if (software.driver_cuda_version && software.runtime_cuda_version) {
    judgements.push_back({"inventory/software/cuda", "compute", "CUDA driver and runtime", Verdict::pass, profile.rule(key),
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
