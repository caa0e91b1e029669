// The judge asked between rounds whether more repetitions could change a verdict.
#include "judge/verdict_decider.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <vector>

#include "core/benchmark_json.hpp"
#include "core/repetition_rounds.hpp"
#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_field_error.hpp"
#include "core/json_input.hpp"
#include "core/json_records.hpp"
#include "core/text_escape.hpp"
#include "judge/judge.hpp"
#include "report/report.hpp"

namespace pipecheck {

namespace {

enum class End { low, high };

// The measurement as if its median sat at one end of its interval: the verdict rules then see a
// figure with no spread left to straddle a threshold.
void move_to_end(Measurement& m, End end) {
  if (m.median_interval && m.stats.median != 0) {
    m.stats.median = end == End::low ? m.median_interval->low : m.median_interval->high;
  }
  const auto& percent = end == End::low ? m.percent_low : m.percent_high;
  if (percent) m.percent_of_ceiling = *percent;
  m.median_interval.reset();
  m.percent_low.reset();
  m.percent_high.reset();
}

// Every judgement of each measurement key (a figure may meet more than one check).
std::map<std::string, std::vector<Judgement>> judgements_by_key(const Report& report, const Inventory& inventory,
                                                                const Profile& profile) {
  std::map<std::string, std::vector<Judgement>> by_key;
  for (auto& j : judge_measurements(report, inventory, profile)) by_key[j.subject].push_back(std::move(j));
  return by_key;
}

Report report_at(const Report& judged_as_measured, End end) {
  Report moved = judged_as_measured;
  for (auto& probe : moved.probes) {
    for (auto& m : probe.measurements) move_to_end(m, end);
  }
  return moved;
}

bool decisive(Verdict v) { return v == Verdict::pass || v == Verdict::warn || v == Verdict::fail; }

std::string percent_text(const std::optional<double>& value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", value.value_or(0));
  return text;
}

CaseDecision decision_for(const Measurement& m, const std::vector<Judgement>& measured,
                          const std::vector<Judgement>& low, const std::vector<Judgement>& high) {
  CaseDecision decision;
  for (const auto& j : measured) decision.judged = decision.judged || j.verdict != Verdict::info;
  if (!decision.judged) return decision;
  decision.decided = low.size() == measured.size() && high.size() == measured.size();
  for (std::size_t i = 0; decision.decided && i < measured.size(); ++i) {
    decision.decided = decisive(low[i].verdict) && low[i].verdict == high[i].verdict;
  }
  const std::string ends = m.percent_low && m.percent_high
                               ? " (" + percent_text(m.percent_low) + " to " + percent_text(m.percent_high) + " of its ceiling)"
                               : "";
  if (decision.decided) {
    decision.why = std::string(to_string(low.front().verdict)) + " at both ends of the median's interval" + ends +
                   ": " + low.front().rule;
  } else {
    const Verdict l = low.empty() ? Verdict::info : low.front().verdict;
    const Verdict h = high.empty() ? Verdict::info : high.front().verdict;
    decision.why = std::string("the median's interval") + ends + " spans " + to_string(l) + " to " + to_string(h) +
                   (measured.empty() ? "" : ": " + measured.front().rule);
  }
  return decision;
}

}  // namespace

VerdictDecider::VerdictDecider(std::string stage, std::string probe, Inventory inventory, Profile profile)
    : stage_(std::move(stage)), probe_(std::move(probe)), inventory_(std::move(inventory)), profile_(std::move(profile)) {}

std::map<std::string, CaseDecision> VerdictDecider::decide(const std::string& benchmark_json) const {
  ParsedBenchmarks parsed = parse_benchmark_json(benchmark_json, stage_);
  Report report;
  ProbeOutcome outcome;
  outcome.probe = probe_;
  outcome.stage = stage_;
  outcome.status = ProbeStatus::ok;
  outcome.measurements = std::move(parsed.measurements);
  report.probes.push_back(std::move(outcome));
  attach_ceilings(report, inventory_);
  const auto measured = judgements_by_key(report, inventory_, profile_);
  const auto low = judgements_by_key(report_at(report, End::low), inventory_, profile_);
  const auto high = judgements_by_key(report_at(report, End::high), inventory_, profile_);
  std::map<std::string, CaseDecision> decisions;
  static const std::vector<Judgement> none;
  const auto of = [](const auto& table, const std::string& key) -> const std::vector<Judgement>& {
    const auto it = table.find(key);
    return it == table.end() ? none : it->second;
  };
  for (const auto& m : report.probes.front().measurements) {
    CaseDecision decision = decision_for(m, of(measured, m.key), of(low, m.key), of(high, m.key));
    if (decision.judged) decisions[m.key] = std::move(decision);
  }
  return decisions;
}

VerdictDecider load_verdict_decider(const std::string& stage, const std::string& probe,
                                    const std::filesystem::path& inventory_path,
                                    const std::filesystem::path& profile_path) {
  const std::string shown = escape_name(inventory_path.string());
  Inventory inventory;
  try {
    inventory = read_fields(inventory_path, parse_json(read_file(inventory_path)),
                            [](const nlohmann::json& d) { return d.get<Inventory>(); });
  } catch (const std::exception& error) {
    throw UsageError("--pipecheck_verdict_inventory=" + shown + ": not an inventory.json: " + error.what());
  }
  const Profile profile = profile_path.empty() ? default_profile() : load_profile(profile_path);
  return VerdictDecider(stage, probe, std::move(inventory), profile);
}

CaseDecider verdict_case_decider(const std::string& stage, const std::string& probe, const ProbeOptions& options) {
  const std::string* inventory = options.last("verdict_inventory");
  if (inventory == nullptr) return {};
  const std::string* profile = options.last("verdict_profile");
  auto decider = std::make_shared<VerdictDecider>(
      load_verdict_decider(stage, probe, *inventory, profile == nullptr ? std::string() : *profile));
  return [decider](const std::string& benchmark_json) { return decider->decide(benchmark_json); };
}

}  // namespace pipecheck
