// Terminal, JSON, HTML and Prometheus renderings of a history (see history_render.hpp).
#include "history/history_render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "core/text_escape.hpp"
#include "history/history_store.hpp"

namespace pipecheck {

namespace {

std::string figure(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

std::string fixed(double v, int digits) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

struct SeriesRow {
  std::string host, mode_key, key, what, unit;
  std::vector<double> medians;
  std::vector<std::string> dates;
  std::vector<std::int64_t> run_ids;
};

// host -> key (with the command and mode when not a standard run) -> series, in run order.
std::map<std::string, std::map<std::string, SeriesRow>> series_of(const std::vector<HistoryRun>& runs) {
  std::map<std::string, std::map<std::string, SeriesRow>> out;
  for (const auto& run : runs) {
    for (const auto& m : run.measurements) {
      const std::string label = run.command + " " + run.mode + " " + m.key;
      SeriesRow& row = out[run.host][label];
      row.host = run.host;
      row.mode_key = label;
      row.key = m.key;
      row.what = m.what;
      row.unit = m.unit;
      row.medians.push_back(m.stats.median);
      row.dates.push_back(run.started_utc);
      row.run_ids.push_back(run.id);
    }
  }
  return out;
}

const Drift* drift_for(const HistoryView& view, const std::string& host, const std::string& key) {
  for (const auto& d : view.analysis.drifts) {
    if (d.host == host && d.key == key && d.kind != "link") return &d;
  }
  return nullptr;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : printable_text(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string prom_label(const std::string& text) {
  std::string out;
  for (const char c : printable_text(text)) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

HistoryView build_history_view(std::string store, int schema_version, std::vector<HistoryRun> runs,
                               const DriftOptions& options) {
  HistoryView view;
  view.store = std::move(store);
  view.schema_version = schema_version;
  view.options = options;
  view.analysis = find_drifts(runs, options);
  view.lemons = rank_lemons(runs, view.analysis.drifts);
  view.runs = std::move(runs);
  return view;
}

std::string render_history_text(const HistoryView& view) {
  std::ostringstream out;
  std::set<std::string> hosts;
  for (const auto& r : view.runs) hosts.insert(r.host);
  out << "history: " << printable_text(view.store) << " (schema " << view.schema_version << "): " << view.runs.size()
      << " runs of " << hosts.size() << " host" << (hosts.size() == 1 ? "" : "s") << "\n";
  for (const auto& [host, rows] : series_of(view.runs)) {
    out << "\n" << printable_text(host) << "\n";
    out << "  " << pad("measurement", 52) << pad("unit", 9) << pad("runs", 6) << pad("first", 10) << pad("last", 10)
        << pad("min", 10) << pad("max", 10) << "drift\n";
    for (const auto& [label, row] : rows) {
      const auto [lo, hi] = std::minmax_element(row.medians.begin(), row.medians.end());
      const Drift* d = drift_for(view, host, row.key);
      std::string flag = "-";
      if (d != nullptr) {
        char buffer[96];
        std::snprintf(buffer, sizeof buffer, "%s %+.1f%% from %s", d->kind.c_str(), d->size_percent,
                      d->started_utc.c_str());
        flag = buffer;
      }
      out << "  " << pad(printable_text(label), 52) << pad(printable_text(row.unit), 9)
          << pad(std::to_string(row.medians.size()), 6) << pad(figure(row.medians.front()), 10)
          << pad(figure(row.medians.back()), 10) << pad(figure(*lo), 10) << pad(figure(*hi), 10) << flag << "\n";
    }
  }
  out << "\ndrifts: " << view.analysis.drifts.size() << " (" << view.analysis.series << " series, "
      << view.analysis.series_too_short << " too short to judge, " << view.analysis.points_busy
      << " figures left out as busy; Holm at " << view.options.family_alpha << ")\n";
  for (const auto& d : view.analysis.drifts) {
    out << "  " << printable_text(d.host) << "  " << printable_text(d.kind == "link" ? d.what : d.key) << ": "
        << printable_text(d.evidence) << "\n";
  }
  out << "\nlemons: " << view.lemons.size() << "\n";
  int rank = 0;
  for (const auto& l : view.lemons) {
    out << "  " << ++rank << ". " << printable_text(l.host) << "  score " << fixed(l.score, 2) << " (" << l.runs
        << " runs: " << l.failed_runs << " failed, " << l.inconclusive_runs << " inconclusive, " << l.drifts
        << " drifts, " << l.link_flaps << " link flaps, " << l.faults << " faults)\n     worst: "
        << printable_text(l.worst_evidence) << "\n";
  }
  return out.str();
}

nlohmann::json history_to_json(const HistoryView& view) {
  nlohmann::json doc;
  doc["store"] = view.store;
  doc["schema_version"] = view.schema_version;
  doc["runs"] = nlohmann::json::array();
  for (const auto& r : view.runs) {
    doc["runs"].push_back({{"id", r.id},
                           {"host", r.host},
                           {"command", r.command},
                           {"started_utc", r.started_utc},
                           {"finished_utc", r.finished_utc},
                           {"mode", r.mode},
                           {"overall", r.overall},
                           {"pipecheck_version", r.pipecheck_version},
                           {"fingerprint", r.fingerprint},
                           {"source", r.source},
                           {"measurements", r.measurements.size()},
                           {"faults", r.faults.size()}});
  }
  doc["series"] = nlohmann::json::array();
  for (const auto& [host, rows] : series_of(view.runs)) {
    for (const auto& [label, row] : rows) {
      doc["series"].push_back({{"host", host}, {"key", row.key}, {"label", label}, {"unit", row.unit},
                               {"runs", row.run_ids}, {"medians", row.medians}});
    }
  }
  doc["drifts"] = nlohmann::json::array();
  for (const auto& d : view.analysis.drifts) {
    nlohmann::json j = {{"host", d.host},
                        {"key", d.key},
                        {"what", d.what},
                        {"unit", d.unit},
                        {"kind", d.kind},
                        {"direction", d.direction},
                        {"worse", d.worse},
                        {"started_utc", d.started_utc},
                        {"started_run", d.started_run},
                        {"start_index", d.start_index},
                        {"size_percent", d.size_percent},
                        {"evidence", d.evidence}};
    if (d.kind == "link") {
      j["runs_below_max"] = d.flagged_runs;
      j["runs"] = d.total_runs;
    } else {
      j["runs_before"] = d.runs_before;
      j["runs_after"] = d.runs_after;
      j["before_median"] = d.before_median;
      j["after_median"] = d.after_median;
      j["noise_percent"] = d.noise_percent;
      j["spread_percent"] = d.spread_percent;
      j["p_value"] = d.p_value;
      j["adjusted_p"] = d.adjusted_p;
      j["repetitions_p"] = d.repetitions_p;
      j["excluded_busy_runs"] = d.excluded_busy;
    }
    doc["drifts"].push_back(std::move(j));
  }
  doc["lemons"] = nlohmann::json::array();
  for (const auto& l : view.lemons) {
    doc["lemons"].push_back({{"host", l.host},
                             {"score", l.score},
                             {"runs", l.runs},
                             {"failed_runs", l.failed_runs},
                             {"inconclusive_runs", l.inconclusive_runs},
                             {"drifts", l.drifts},
                             {"link_flaps", l.link_flaps},
                             {"faults", l.faults},
                             {"worst_evidence", l.worst_evidence}});
  }
  doc["analysis"] = {{"series", view.analysis.series},
                     {"series_too_short", view.analysis.series_too_short},
                     {"figures_left_out_busy", view.analysis.points_busy},
                     {"family_alpha", view.options.family_alpha},
                     {"threshold_percent", view.options.threshold_percent},
                     {"include_busy", std::isinf(view.options.busy_cpu_percent)},
                     {"busy_cpu_percent", std::isinf(view.options.busy_cpu_percent) ? nlohmann::json()
                                                                                      : nlohmann::json(view.options.busy_cpu_percent)},
                     {"min_runs_before", view.options.min_runs_before},
                     {"min_runs_after", view.options.min_runs_after}};
  return doc;
}

std::string render_history_html(const HistoryView& view) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pipecheck history</title>\n"
         "<style>body{font-family:sans-serif;margin:1.5em}figure{display:inline-block;margin:0.4em;"
         "border:1px solid #ccc;padding:0.3em}figcaption{font-size:0.8em;max-width:260px}"
         ".drift{color:#b00}</style></head><body>\n";
  out << "<h1>pipecheck history</h1>\n<p>" << html_escape(view.store) << ", schema " << view.schema_version << ", "
      << view.runs.size() << " runs</p>\n";
  if (!view.analysis.drifts.empty()) {
    out << "<h2>Drifts</h2>\n<ul>\n";
    for (const auto& d : view.analysis.drifts) {
      out << "<li class=\"drift\">" << html_escape(d.host) << " " << html_escape(d.kind == "link" ? d.what : d.key)
          << ": " << html_escape(d.evidence) << "</li>\n";
    }
    out << "</ul>\n";
  }
  if (!view.lemons.empty()) {
    out << "<h2>Lemon nodes</h2>\n<ol>\n";
    for (const auto& l : view.lemons) {
      out << "<li>" << html_escape(l.host) << " (score " << fixed(l.score, 2) << "): " << html_escape(l.worst_evidence)
          << "</li>\n";
    }
    out << "</ol>\n";
  }
  constexpr double kW = 240, kH = 80;
  for (const auto& [host, rows] : series_of(view.runs)) {
    out << "<h2>" << html_escape(host) << "</h2>\n";
    for (const auto& [label, row] : rows) {
      const auto [lo, hi] = std::minmax_element(row.medians.begin(), row.medians.end());
      const double span = *hi - *lo > 0 ? *hi - *lo : 1;
      const std::size_t n = row.medians.size();
      auto x_at = [&](std::size_t i) { return n > 1 ? 4 + (kW - 8) * static_cast<double>(i) / static_cast<double>(n - 1) : kW / 2; };
      auto y_at = [&](double v) { return kH - 4 - (kH - 8) * (v - *lo) / span; };
      out << "<figure><svg width=\"" << kW << "\" height=\"" << kH << "\" viewBox=\"0 0 " << kW << " " << kH
          << "\" role=\"img\"><polyline fill=\"none\" stroke=\"#236\" stroke-width=\"1.5\" points=\"";
      for (std::size_t i = 0; i < n; ++i) out << fixed(x_at(i), 1) << "," << fixed(y_at(row.medians[i]), 1) << " ";
      out << "\"/>";
      const Drift* d = drift_for(view, host, row.key);
      if (d != nullptr && static_cast<std::size_t>(d->start_index) < n) {
        const double x = x_at(static_cast<std::size_t>(d->start_index));
        out << "<line x1=\"" << fixed(x, 1) << "\" x2=\"" << fixed(x, 1) << "\" y1=\"0\" y2=\"" << kH
            << "\" stroke=\"#b00\" stroke-dasharray=\"3,2\"/>";
      }
      out << "</svg><figcaption>" << html_escape(label) << " (" << html_escape(row.unit) << "), " << n
          << " runs, " << figure(*lo) << " to " << figure(*hi);
      if (d != nullptr) out << "<br><span class=\"drift\">" << html_escape(d->evidence) << "</span>";
      out << "</figcaption></figure>\n";
    }
  }
  out << "</body></html>\n";
  return out.str();
}

std::string render_history_prom(const HistoryView& view) {
  std::ostringstream out;
  out << "# HELP pipecheck_history_drift A drift against the host's own past: the change in % (step, slide), or the "
         "% of runs a link trained below its maximum (link).\n# TYPE pipecheck_history_drift gauge\n";
  for (const auto& d : view.analysis.drifts) {
    out << "pipecheck_history_drift{host=\"" << prom_label(d.host) << "\",key=\"" << prom_label(d.key)
        << "\",kind=\"" << prom_label(d.kind) << "\",started=\"" << prom_label(d.started_utc) << "\"} "
        << fixed(d.size_percent, 3) << "\n";
  }
  out << "# HELP pipecheck_history_lemon_score The host's lemon score (0 when its history is clean).\n"
         "# TYPE pipecheck_history_lemon_score gauge\n";
  std::map<std::string, int> runs;
  for (const auto& r : view.runs) ++runs[r.host];
  for (const auto& [host, count] : runs) {
    double score = 0;
    for (const auto& l : view.lemons) {
      if (l.host == host) score = l.score;
    }
    out << "pipecheck_history_lemon_score{host=\"" << prom_label(host) << "\"} " << fixed(score, 4) << "\n";
  }
  out << "# HELP pipecheck_history_runs Runs recorded for the host.\n# TYPE pipecheck_history_runs gauge\n";
  for (const auto& [host, count] : runs) {
    out << "pipecheck_history_runs{host=\"" << prom_label(host) << "\"} " << count << "\n";
  }
  return out.str();
}

}  // namespace pipecheck
