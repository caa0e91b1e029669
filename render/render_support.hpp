// What the renderers (HTML, Markdown, Prometheus, JUnit, terminal) share: the extras a render
// may take beyond the report, pipeline order of stages, verdict lookup and figure formatting.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.hpp"
#include "core/stage_registry.hpp"
#include "report/report.hpp"
#include "telemetry/telemetry_csv_reader.hpp"
#include "report/verdict.hpp"

namespace pipecheck {

// Inputs beside report.json and inventory.json, each optional.
struct RenderExtras {
  std::optional<TelemetryLog> telemetry;  // a stress run's telemetry.csv, read
  std::vector<std::string> burn_rates;    // its summary.json's rates against their ceilings
  std::string baseline_comparison;        // `compare`'s text against the baseline, shown as is
};

// Judgements by subject (a measurement key, "probe/<stage>", "inventory/...").
class JudgementIndex {
 public:
  explicit JudgementIndex(const Judged& judged);
  const Judgement* find(const std::string& subject) const;

 private:
  std::map<std::string, const Judgement*> by_subject_;
};

// The stages that have probes or measurements, in the order data flows through training
// (storage, decode, hostmem, pcie, memory, compute, comm, stress), unknown stages after.
std::vector<std::string> stages_in_pipeline_order(const Report& report);

// The measurements of one stage, probe by probe, in report order.
std::vector<const Measurement*> measurements_of(const Report& report, const std::string& stage);

// "52.8 GB/s"; "63.0 GB/s" or "unknown"; "83.8%" or "-".
std::string measured_text(const Measurement& m);
std::string ceiling_value_text(const Measurement& m);
std::string percent_text(const Measurement& m);
// The ceiling's derivation and basis (the basis left out when the derivation already names it),
// or why there is none.
std::string ceiling_note(const Measurement& m);
// `text` without the clauses (split at "; ", ": " and " (") that `earlier` already says, compared
// without case, so a cell never says one sentence twice; "" when nothing new is left.
std::string without_repeated_clauses(const std::string& text, const std::string& earlier);
// "16.6 - 18.9 (n=3)" or "(1 sample)".
std::string range_text(const Measurement& m);

struct VerdictCounts {
  int pass = 0, warn = 0, fail = 0, invalid = 0, inconclusive = 0, info = 0, skipped = 0;
  int total() const { return pass + warn + fail + invalid + inconclusive + info + skipped; }
};
VerdictCounts count_verdicts(const Judged& judged);
// "1 invalid, 3 fail, 1 inconclusive, 2 warn, 20 pass, 4 info, 1 skipped" (zero counts left
// out); "no verdicts".
std::string counts_text(const VerdictCounts& counts);
// Whether the report has been judged at all (an unjudged report renders without verdicts).
bool is_judged(const Judged& judged);

// Judgements not about a measurement of the report (inventory facts, probe outcomes).
std::vector<const Judgement*> other_judgements(const Report& report, const Judged& judged);

// 3 significant figures for a figure in a table: 1234 -> "1234", 17.912 -> "17.9", 1.234 -> "1.23".
std::string format_figure(double value);

}  // namespace pipecheck
