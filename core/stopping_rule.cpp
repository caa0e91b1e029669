// The stopping rule for repetitions and its flags.
#include "core/stopping_rule.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "core/errors.hpp"
#include "core/median_interval.hpp"

namespace pipecheck {

namespace {

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string noise_text(const std::vector<double>& values) {
  const auto noise = median_noise_percent(values);
  if (!noise) return "noise unknown";
  char text[48];
  std::snprintf(text, sizeof text, "noise %.*f%%", *noise < 10 ? 1 : 0, *noise);
  return text;
}

// A whole number in [lo, hi] spanning the flag's whole value.
int count_flag(const ProbeOptions& options, const std::string& name, int fallback, int lo, int hi) {
  const std::string* text = options.last(name);
  if (text == nullptr) return fallback;
  const auto bad = [&] {
    return UsageError("--pipecheck_" + name + "=" + *text + ": expected a whole number in " + std::to_string(lo) +
                      ".." + std::to_string(hi));
  };
  if (text->empty() || text->size() > 9 || text->find_first_not_of("0123456789") != std::string::npos) throw bad();
  const int value = std::stoi(*text);
  if (value < lo || value > hi) throw bad();
  return value;
}

// A figure in (0, hi] spanning the flag's whole value.
double figure_flag(const ProbeOptions& options, const std::string& name, double fallback, double hi) {
  const std::string* text = options.last(name);
  if (text == nullptr) return fallback;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text->size() || !std::isfinite(value) || value <= 0 || value > hi) {
    throw UsageError("--pipecheck_" + name + "=" + *text + ": expected a number above 0 and at most " + number_text(hi));
  }
  return value;
}

constexpr int kMaxCount = 10000;
const char* const kCountFlags[] = {"repetitions", "min_repetitions", "max_repetitions"};
const char* const kRuleFlags[] = {"target_noise", "case_seconds"};

}  // namespace

std::string RepetitionPolicy::describe() const {
  if (fixed()) return std::to_string(min_repetitions) + (min_repetitions == 1 ? " repetition" : " repetitions");
  const std::string noise_rule = "the median's noise is <= " + number_text(target_noise_percent) + "%";
  std::string text = std::to_string(min_repetitions) + " to " + std::to_string(max_repetitions) + " repetitions until ";
  if (!decide_verdicts) {
    text += noise_rule;
  } else {
    text += "each verdict is decided (figures without a threshold: " +
            (hold_figures_to_noise ? "until " + noise_rule : std::to_string(min_repetitions) + " repetitions") + ")";
  }
  if (case_seconds > 0) text += ", at most " + number_text(case_seconds) + " s a case";
  return text;
}

RepetitionPolicy default_repetition_policy(ProbeMode mode) {
  switch (mode) {
    case ProbeMode::quick: return {5, 5, 2.0, 0};
    case ProbeMode::full: return {10, 200, 2.0, 60};
    default: return {5, 100, 2.0, 10};
  }
}

bool has_repetition_flags(const ProbeOptions& options) {
  for (const char* name : kCountFlags) {
    if (options.last(name)) return true;
  }
  for (const char* name : kRuleFlags) {
    if (options.last(name)) return true;
  }
  return false;
}

RepetitionPolicy repetition_policy(const ProbeOptions& options) {
  RepetitionPolicy policy = default_repetition_policy(options.mode);
  if (options.last("repetitions")) {
    if (options.last("min_repetitions") || options.last("max_repetitions")) {
      throw UsageError("--pipecheck_repetitions=" + *options.last("repetitions") +
                       ": a fixed count excludes --pipecheck_min_repetitions and --pipecheck_max_repetitions");
    }
    policy.min_repetitions = policy.max_repetitions = count_flag(options, "repetitions", 5, 1, kMaxCount);
  } else {
    policy.min_repetitions = count_flag(options, "min_repetitions", policy.min_repetitions, 1, kMaxCount);
    // A raised minimum lifts a default maximum with it; a maximum the user gave must hold it.
    const int default_max = std::max(policy.max_repetitions, policy.min_repetitions);
    policy.max_repetitions = count_flag(options, "max_repetitions", default_max, 1, kMaxCount);
    if (policy.max_repetitions < policy.min_repetitions) {
      throw UsageError("--pipecheck_max_repetitions=" + std::to_string(policy.max_repetitions) +
                       ": below the minimum of " + std::to_string(policy.min_repetitions) + " repetitions");
    }
  }
  const std::string* noise = options.last("target_noise");
  if (noise != nullptr && *noise == "none") {
    policy.hold_figures_to_noise = false;
  } else {
    policy.target_noise_percent = figure_flag(options, "target_noise", policy.target_noise_percent, 100);
  }
  policy.decide_verdicts = options.last("verdict_inventory") != nullptr;
  if (!policy.hold_figures_to_noise && !policy.decide_verdicts) {
    throw UsageError("--pipecheck_target_noise=none: only with --pipecheck_verdict_inventory (without verdicts to "
                     "decide, nothing would stop a case before its maximum)");
  }
  // Quick mode has no cap (its count is fixed); a count range given to it takes the standard cap.
  const double default_cap =
      policy.case_seconds > 0 ? policy.case_seconds : default_repetition_policy(ProbeMode::standard).case_seconds;
  policy.case_seconds = figure_flag(options, "case_seconds", default_cap, 86400);
  return policy;
}

namespace {

bool quiet(const std::vector<double>& values, const RepetitionPolicy& policy) {
  const auto noise = median_noise_percent(values);
  return noise && *noise <= policy.target_noise_percent;
}

bool held(const std::vector<CaseDecision>& decisions, std::size_t i) {
  return i < decisions.size() && decisions[i].held_to_noise;
}

// With verdicts to decide: every judged member decided (the unjudged ones are the references
// of those verdicts and stop with them) and every held member settled, or, in a group nothing
// judges or holds, the figures settled.
std::optional<StopReason> verdict_stop(const std::vector<std::vector<double>>& values, const RepetitionPolicy& policy,
                                       const std::vector<CaseDecision>& decisions) {
  bool any_judged = false, all_decided = true, any_held = false, held_quiet = true;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (held(decisions, i)) {
      any_held = true;
      held_quiet = held_quiet && quiet(values[i], policy);
    }
    if (i >= decisions.size() || !decisions[i].judged) continue;
    any_judged = true;
    all_decided = all_decided && decisions[i].decided;
  }
  if (any_judged) return all_decided && held_quiet ? std::optional(StopReason::decided) : std::nullopt;
  if (!policy.hold_figures_to_noise && !any_held) return StopReason::minimum_count;
  return std::nullopt;
}

}  // namespace

StopReason group_stop_reason(const std::vector<std::vector<double>>& values, double seconds,
                             const RepetitionPolicy& policy, const std::vector<CaseDecision>& decisions) {
  std::size_t done = values.empty() ? 0 : values.front().size();
  for (const auto& member : values) done = std::min(done, member.size());
  const int members = static_cast<int>(std::max<std::size_t>(values.size(), 1));
  if (static_cast<int>(done) < policy.min_repetitions) return StopReason::running;
  if (policy.fixed()) return StopReason::fixed_count;
  if (policy.decide_verdicts) {
    if (const auto stop = verdict_stop(values, policy, decisions)) return *stop;
  }
  bool all_quiet = true, any_held = false;
  for (std::size_t i = 0; i < values.size(); ++i) {
    all_quiet = all_quiet && quiet(values[i], policy);
    any_held = any_held || held(decisions, i);
  }
  if (all_quiet && (policy.hold_figures_to_noise || any_held)) return StopReason::converged;
  if (static_cast<int>(done) >= policy.max_repetitions) return StopReason::max_repetitions;
  if (policy.case_seconds > 0 && seconds >= policy.case_seconds * members) return StopReason::time_cap;
  return StopReason::running;
}

namespace {

std::string stop_words(StopReason reason, const std::vector<double>& values, const RepetitionPolicy& policy,
                       const CaseDecision& decision) {
  const std::string count = std::to_string(values.size()) + (values.size() == 1 ? " repetition" : " repetitions");
  const std::string target = "target " + number_text(policy.target_noise_percent) + "%";
  const std::string settled = noise_text(values) + " <= " + number_text(policy.target_noise_percent) + "%";
  // A held figure says it was held; a judged one its verdict; an unjudged one its target.
  const std::string held_words = decision.held_to_noise ? " (another figure is computed from it)" : "";
  std::string unsettled = ", " + target + held_words;
  if (decision.judged && !decision.decided) unsettled = ": verdict not decided: " + decision.why;
  if (decision.judged && decision.decided) {
    // Decided, yet its group went on: this figure or one beside it was held to the noise target.
    unsettled = ": verdict decided (" + decision.why + ")" +
                (decision.held_to_noise ? ", " + target + held_words : "; its group went on for a figure held to the noise target");
  }
  switch (reason) {
    case StopReason::converged:
      return "converged: " + settled + " after " + count + held_words;
    case StopReason::decided:
      if (decision.judged && decision.held_to_noise) {
        return "verdict decided and " + settled + held_words + " after " + count + ": " + decision.why;
      }
      if (decision.judged) return "verdict decided after " + count + ": " + decision.why;
      if (decision.held_to_noise) {
        return "held to the noise target" + held_words + ": " + settled + " after " + count +
               ", the verdicts it is the reference of decided";
      }
      return "stopped with the verdicts it is the reference of, after " + count + ": " + noise_text(values);
    case StopReason::minimum_count:
      return "minimum of " + count + " (no threshold to decide): " + noise_text(values);
    case StopReason::max_repetitions:
      return "maximum of " + count + ": " + noise_text(values) + unsettled;
    case StopReason::time_cap:
      return "time cap (" + number_text(policy.case_seconds) + " s a case) after " + count + ": " + noise_text(values) +
             unsettled;
    case StopReason::fixed_count:
      return "fixed count of " + count + ": " + noise_text(values);
    case StopReason::running:
      break;
  }
  return "stopped after " + count + ": " + noise_text(values);
}

}  // namespace

std::string describe_stop(StopReason reason, const std::vector<double>& values, const RepetitionPolicy& policy,
                          const CaseDecision& decision, double seconds, int group_size) {
  std::string text = stop_words(reason, values, policy, decision);
  if (seconds > 0) {
    char took[64];
    std::snprintf(took, sizeof took, "; %.1f s", seconds);
    text += took;
    if (group_size > 1) text += " for its group of " + std::to_string(group_size);
  }
  return text;
}

std::string scaling_group_key(const std::string& run_name) {
  std::string key;
  std::size_t start = 0;
  while (start <= run_name.size()) {
    std::size_t end = run_name.find('/', start);
    if (end == std::string::npos) end = run_name.size();
    const std::string part = run_name.substr(start, end - start);
    if (part.rfind("threads:", 0) != 0) key += (key.empty() ? "" : "/") + part;
    start = end + 1;
  }
  return key;
}

}  // namespace pipecheck
