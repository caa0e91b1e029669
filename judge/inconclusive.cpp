// The judge's noise rules (see inconclusive.hpp).
#include "judge/inconclusive.hpp"

#include <cmath>
#include <cstdio>

#include "core/figure_text.hpp"
#include "core/stage_registry.hpp"

namespace pipecheck {

namespace {

// Figures measured on a GPU, where another process on it can slow them: its stage's record
// says so, and GPU decode (op nvjpeg) runs there too.
bool runs_on_gpu(const Measurement& m) {
  const StageSpec* stage = find_stage(m.stage);
  return (stage && stage->runs_on_gpu) || param_or_empty(m.params, "op") == "nvjpeg";
}

std::string value_text(double value, const std::string& unit) {
  return unit == "%" ? percent_text(value) : figure(value, unit);
}

}  // namespace

std::optional<std::string> busy_reason(const ProbeOutcome& probe, const Measurement& m, const Profile& profile,
                                       std::string& rule) {
  if (!probe.conditions) return std::nullopt;
  const RunConditions& c = *probe.conditions;
  if (const auto limit = profile.threshold(kOtherCpuKey); limit && c.other_cpu_percent > *limit) {
    rule = profile.rule(kOtherCpuKey);
    std::string text = "other processes used " + plain_number(std::round(c.other_cpu_percent * 10) / 10) +
                       "% of one core during the probe";
    if (!c.top_consumers.empty()) text += " (" + describe_consumers(c.top_consumers) + ")";
    if (c.loadavg_1m) text += ", load average " + plain_number(std::round(*c.loadavg_1m * 100) / 100);
    return text + ", more than the " + plain_number(*limit) + "% allowed";
  }
  if (const auto limit = profile.threshold(kStealKey); limit && c.steal_percent > *limit) {
    rule = profile.rule(kStealKey);
    return "the hypervisor stole " + percent_text(c.steal_percent) + " of the CPUs' time during the probe, more than the " +
           plain_number(*limit) + "% allowed";
  }
  if (runs_on_gpu(m) && !c.gpu_processes.empty()) {
    rule = "";
    std::string who;
    for (const auto& p : c.gpu_processes) {
      who += (who.empty() ? "" : ", ") + (p.command.empty() ? "pid " : p.command + " (pid ") + std::to_string(p.pid) +
             (p.command.empty() ? "" : ")") + " on " + p.gpu;
    }
    return "other processes held a GPU during the probe: " + who;
  }
  return std::nullopt;
}

Judgement judge_under_conditions(Judgement judgement, const ProbeOutcome& probe, const Measurement& m,
                                 const Profile& profile) {
  // A failure, or a verdict already inconclusive for its spread: the load is said first.
  const bool could_fail = judgement.verdict == Verdict::fail || judgement.verdict == Verdict::inconclusive;
  if (!could_fail || judgement.probe_failed) return judgement;
  std::string rule;
  const auto reason = busy_reason(probe, m, profile, rule);
  if (!reason) return judgement;
  judgement.verdict = Verdict::inconclusive;
  judgement.explanation = "measured while the machine was busy: " + *reason + "; rerun on a quiet machine. As measured: " +
                          judgement.explanation;
  if (!rule.empty()) judgement.rule = rule + "; " + judgement.rule;
  return judgement;
}

std::optional<std::string> spread_straddles(const std::optional<double>& low, const std::optional<double>& high,
                                            double minimum, const std::string& unit, double coverage) {
  if (!low || !high || !(*low < minimum && minimum <= *high)) return std::nullopt;
  char level[32];
  std::snprintf(level, sizeof level, "%.0f%%", 100 * coverage);
  return "the spread " + value_text(*low, unit) + " - " + value_text(*high, unit) + " (" + level +
         " interval of the median) straddles the " + value_text(minimum, unit) + " minimum: noise could make it pass or fail";
}

}  // namespace pipecheck
