// The verdicts that need attention first, and what to do about each (see attention.hpp).
#include "render/attention.hpp"

#include <algorithm>
#include <map>

#include "render/render_support.hpp"
#include "render/summary_table.hpp"

namespace pipecheck {

namespace {

std::string subject_title(const Judgement& j, const Measurement* m) {
  const std::string what = m ? m->what : (j.what.empty() ? j.subject : j.what);
  return stage_title(j.stage) + ": " + what;
}

std::string figure_of(const Measurement& m) {
  std::string figure = measured_text(m);
  if (m.stats.samples > 1) {
    figure += " (" + format_figure(m.stats.min) + " - " + format_figure(m.stats.max) + " over " +
              std::to_string(m.stats.samples) + " repetitions)";
  }
  if (m.percent_of_ceiling) figure += ", " + percent_text(m) + " of " + ceiling_value_text(m);
  return figure;
}

}  // namespace

std::string advice_for(const Judgement& j) {
  if (j.probe_failed) {
    return "The probe crashed, hung or printed no valid output: read " + j.stage +
           ".log in the run folder and rerun the stage alone (pipecheck run --only " + j.stage + ").";
  }
  if (j.verdict == Verdict::invalid) {
    return "A figure above its physical ceiling is a measurement error, never a pass: the probe measured "
           "something its ceiling does not bound (a cache, a compressed path), or the ceiling's inputs (clocks, "
           "link, channels) are wrong. Check the ceiling's derivation against the inventory; if both are right, "
           "report it as a pipecheck bug.";
  }
  if (j.verdict == Verdict::inconclusive) {
    return "The noise measured around the probe could have produced this result: rerun on a quiet machine "
           "(nothing else running, performance governor) before judging it.";
  }
  if (const StageSpec* stage = find_stage(j.stage)) return stage->advice;
  return "Rerun the stage alone (pipecheck run --only " + j.stage +
         ") to confirm it, then compare the figure with its ceiling's derivation.";
}

std::vector<AttentionItem> attention_items(const Report& report, const Judged& judged) {
  std::map<std::string, const Measurement*> measurements;
  for (const auto& probe : report.probes) {
    for (const auto& m : probe.measurements) measurements.emplace(m.key, &m);
  }
  std::vector<AttentionItem> items;
  for (const auto& j : judged.judgements) {
    if (!is_failure(j.verdict) && j.verdict != Verdict::inconclusive) continue;
    AttentionItem item;
    item.judgement = &j;
    const auto it = measurements.find(j.subject);
    item.measurement = it == measurements.end() ? nullptr : it->second;
    item.title = subject_title(j, item.measurement);
    if (item.measurement) item.figure = figure_of(*item.measurement);
    item.threshold = j.rule;
    // A finding that cites this subject says what it means in this machine's terms.
    for (const auto& finding : judged.findings) {
      if (std::find(finding.evidence.begin(), finding.evidence.end(), j.subject) != finding.evidence.end()) {
        item.finding = finding.text;
        break;
      }
    }
    item.what_to_do = advice_for(j);
    items.push_back(std::move(item));
  }
  std::stable_sort(items.begin(), items.end(), [](const AttentionItem& a, const AttentionItem& b) {
    return severity(a.judgement->verdict) > severity(b.judgement->verdict);
  });
  return items;
}

}  // namespace pipecheck
