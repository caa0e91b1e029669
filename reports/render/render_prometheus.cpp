// Prometheus textfile renderer: one HELP/TYPE pair a family, its samples together, no duplicate
// label sets (the collector rejects a file with any), no NaN for what is unknown.
#include "reports/render/render_prometheus.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <sstream>

#include "reports/render/escape.hpp"

namespace pipecheck {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}

  void add(const Labels& labels, double value) {
    if (!std::isfinite(value)) return;
    std::string text = name_;
    if (!labels.empty()) {
      text += '{';
      for (std::size_t i = 0; i < labels.size(); ++i) {
        text += (i ? "," : "") + labels[i].first + "=\"" + prometheus_label_escape(labels[i].second) + "\"";
      }
      text += '}';
    }
    if (!seen_.insert(text).second) return;  // a second sample with the same labels is invalid
    char number[40];
    std::snprintf(number, sizeof number, "%.10g", value);
    samples_ += text + " " + number + "\n";
  }

  void write(std::ostringstream& out) const {
    if (samples_.empty()) return;
    out << "# HELP " << name_ << " " << prometheus_help_escape(help_) << "\n# TYPE " << name_ << " gauge\n"
        << samples_;
  }

 private:
  std::string name_;
  std::string help_;
  std::string samples_;
  std::set<std::string> seen_;
};

// "2026-11-30T08:00:09Z" -> seconds since the epoch; empty when it does not parse.
std::optional<double> epoch_seconds(const std::string& iso) {
  std::tm tm{};
  char zone = 0;
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &zone) != 7 ||
      zone != 'Z') {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

}  // namespace

std::string render_prometheus(const Report& report, const Inventory&, const Judged& judged, const RenderExtras&) {
  Family value("pipecheck_measurement_value", "Measured figure (median of the repetitions), in the unit label.");
  Family ceiling("pipecheck_measurement_ceiling", "The hardware ceiling the measurement is held against, in the unit label.");
  Family percent("pipecheck_measurement_percent_of_ceiling", "Measured figure as a percentage of its ceiling.");
  Family verdict("pipecheck_verdict", "One sample per verdict of the acceptance profile, worse is higher: skipped 0, info 1, pass 2, warn 3, inconclusive 4, fail 5, invalid 6; the verdict is also the label.");
  Family overall("pipecheck_overall_pass", "1 when nothing failed (no fail or invalid verdict), else 0.");
  Family probe_ok("pipecheck_probe_ok", "1 when the probe ran to the end, 0 when it was skipped, not built or failed.");
  Family findings("pipecheck_findings", "Findings of the run by severity.");
  Family budget("pipecheck_budget_samples_per_second", "Samples/s each pipeline stage can deliver for the given workload.");
  Family finished("pipecheck_run_finished_timestamp_seconds", "When the run ended, seconds since the epoch.");

  for (const auto& probe : report.probes) {
    probe_ok.add({{"probe", probe.probe}, {"stage", probe.stage}, {"status", to_string(probe.status)}},
                 probe.status == ProbeStatus::ok ? 1 : 0);
    for (const auto& m : probe.measurements) {
      value.add({{"key", m.key}, {"stage", m.stage}, {"unit", m.unit}}, m.stats.median);
      if (m.ceiling.ceiling) {
        ceiling.add({{"key", m.key}, {"stage", m.stage}, {"unit", m.ceiling.ceiling->unit}}, m.ceiling.ceiling->value);
      }
      if (m.percent_of_ceiling) percent.add({{"key", m.key}, {"stage", m.stage}}, *m.percent_of_ceiling);
    }
  }
  for (const auto& j : judged.judgements) {
    verdict.add({{"subject", j.subject}, {"stage", j.stage}, {"verdict", to_string(j.verdict)}},
                prometheus_verdict_value(j.verdict));
  }
  if (is_judged(judged)) overall.add({}, is_failure(judged.overall) ? 0 : 1);
  std::map<std::string, int> by_severity;
  for (const auto& f : judged.findings) ++by_severity[to_string(f.severity)];
  for (const auto& [severity, count] : by_severity) findings.add({{"severity", severity}}, count);
  if (judged.budget) {
    for (const auto& stage : judged.budget->stages) {
      if (stage.samples_per_second) budget.add({{"stage", stage.stage}}, *stage.samples_per_second);
    }
  }
  if (auto when = epoch_seconds(report.finished_utc)) finished.add({}, *when);

  std::ostringstream out;
  for (const Family* family : {&overall, &verdict, &value, &ceiling, &percent, &probe_ok, &findings, &budget, &finished}) {
    family->write(out);
  }
  return out.str();
}

}  // namespace pipecheck
