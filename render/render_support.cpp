// Shared renderer helpers (see render_support.hpp).
#include "render/render_support.hpp"

#include "core/stage_registry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>


namespace pipecheck {

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

JudgementIndex::JudgementIndex(const Judged& judged) {
  for (const auto& judgement : judged.judgements) by_subject_.emplace(judgement.subject, &judgement);
}

const Judgement* JudgementIndex::find(const std::string& subject) const {
  const auto it = by_subject_.find(subject);
  return it == by_subject_.end() ? nullptr : it->second;
}

std::vector<std::string> stages_in_pipeline_order(const Report& report) {
  std::vector<std::string> present;
  for (const auto& probe : report.probes) {
    if (std::find(present.begin(), present.end(), probe.stage) == present.end()) present.push_back(probe.stage);
    for (const auto& m : probe.measurements) {
      if (std::find(present.begin(), present.end(), m.stage) == present.end()) present.push_back(m.stage);
    }
  }
  std::vector<std::string> ordered;
  for (const auto& stage : stage_registry()) {
    if (std::find(present.begin(), present.end(), stage.name) != present.end()) ordered.push_back(stage.name);
  }
  for (const auto& stage : present) {
    if (std::find(ordered.begin(), ordered.end(), stage) == ordered.end()) ordered.push_back(stage);
  }
  return ordered;
}

std::vector<const Measurement*> measurements_of(const Report& report, const std::string& stage) {
  std::vector<const Measurement*> found;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) {
      if (m.stage == stage) found.push_back(&m);
    }
  }
  return found;
}

std::string measured_text(const Measurement& m) { return format_figure(m.stats.median) + " " + m.unit; }

std::string ceiling_value_text(const Measurement& m) {
  if (!m.ceiling.ceiling) return "unknown";
  return format_figure(m.ceiling.ceiling->value) + " " + m.ceiling.ceiling->unit;
}

std::string percent_text(const Measurement& m) {
  return m.percent_of_ceiling ? format_figure(*m.percent_of_ceiling) + "%" : "-";
}

std::string ceiling_note(const Measurement& m) {
  if (m.ceiling.ceiling) {
    const Ceiling& c = *m.ceiling.ceiling;
    const bool named = lower(c.derivation).find(lower(c.basis)) != std::string::npos;
    return c.basis.empty() || named ? c.derivation : c.derivation + " (" + c.basis + ")";
  }
  return m.ceiling.unknown_reason.empty() ? "no ceiling known" : m.ceiling.unknown_reason;
}

std::string without_repeated_clauses(const std::string& text, const std::string& earlier) {
  const std::string said = lower(earlier);
  std::string kept;
  std::size_t start = 0;
  std::string separator;  // the one before the clause at `start`
  while (start <= text.size()) {
    std::size_t end = text.size();
    std::string next_separator;
    for (const char* candidate : {"; ", ": ", " ("}) {
      const std::size_t at = text.find(candidate, start);
      if (at != std::string::npos && at < end) {
        end = at;
        next_separator = candidate;
      }
    }
    const std::string clause = text.substr(start, end - start);
    if (!clause.empty() && said.find(lower(clause)) == std::string::npos) {
      kept += (kept.empty() ? "" : separator) + clause;
    }
    if (next_separator.empty()) break;
    separator = next_separator;
    start = end + next_separator.size();
  }
  return kept;
}

std::string range_text(const Measurement& m) {
  if (m.stats.samples <= 1) return "(1 sample)";
  return format_figure(m.stats.min) + " - " + format_figure(m.stats.max) + " (n=" + std::to_string(m.stats.samples) + ")";
}

VerdictCounts count_verdicts(const Judged& judged) {
  VerdictCounts counts;
  for (const auto& j : judged.judgements) {
    switch (j.verdict) {
      case Verdict::pass: ++counts.pass; break;
      case Verdict::warn: ++counts.warn; break;
      case Verdict::fail: ++counts.fail; break;
      case Verdict::invalid: ++counts.invalid; break;
      case Verdict::inconclusive: ++counts.inconclusive; break;
      case Verdict::info: ++counts.info; break;
      case Verdict::skipped: ++counts.skipped; break;
    }
  }
  return counts;
}

std::string counts_text(const VerdictCounts& counts) {
  std::string text;
  auto add = [&](int n, const char* name) {
    if (n == 0) return;
    if (!text.empty()) text += ", ";
    text += std::to_string(n) + " " + name;
  };
  add(counts.invalid, "invalid");
  add(counts.fail, "fail");
  add(counts.inconclusive, "inconclusive");
  add(counts.warn, "warn");
  add(counts.pass, "pass");
  add(counts.info, "info");
  add(counts.skipped, "skipped");
  return text.empty() ? "no verdicts" : text;
}

bool is_judged(const Judged& judged) { return !judged.judgements.empty() || !judged.findings.empty(); }

std::vector<const Judgement*> other_judgements(const Report& report, const Judged& judged) {
  std::set<std::string> keys;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) keys.insert(m.key);
  }
  std::vector<const Judgement*> others;
  for (const auto& j : judged.judgements) {
    if (!keys.count(j.subject)) others.push_back(&j);
  }
  return others;
}

std::string format_figure(double value) {
  char buffer[64];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace pipecheck
