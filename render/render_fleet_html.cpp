// The fleet page: the same FleetResult the terminal table shows, as a hosts x stages matrix.
#include "render/render_fleet_html.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "render/html_parts.hpp"

namespace pipecheck {

namespace {

using html::fmt;
using html::h;

const char* kFleetStyle = R"(
:root { --fail:#cc3333; --pass:#1f8f4e; --muted:#5d6576; --line:#dde1e8; --bg:#f4f6f9; --card:#fff; --ink:#1d2330; }
* { box-sizing:border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--ink); background:var(--bg); }
main { max-width:1300px; margin:0 auto; padding:24px; }
h1 { font-size:22px; margin:0 0 4px; } h2 { font-size:17px; margin:28px 0 8px; }
.sub { color:var(--muted); margin:0 0 16px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:14px 16px; overflow-x:auto; }
table { border-collapse:collapse; }
th, td { padding:5px 10px; border-bottom:1px solid var(--line); text-align:left; white-space:nowrap; }
th { font-weight:600; background:#fafbfc; }
td.num { text-align:right; font-variant-numeric:tabular-nums; }
table.fleet td.cell { text-align:right; font-variant-numeric:tabular-nums; min-width:96px; }
table.fleet td.outlier { background:#fbe3e3; color:var(--fail); font-weight:600; }
table.fleet td.outlier::before { content:"\25BC  "; }
table.fleet td.none { color:var(--muted); }
tr.outlier-host th { color:var(--fail); }
.badge { display:inline-block; padding:2px 8px; border-radius:10px; color:#fff; font-weight:600; font-size:12px; }
.badge.fail { background:var(--fail); } .badge.pass { background:var(--pass); }
details { margin:6px 0; } summary { cursor:pointer; }
.note { color:var(--muted); }
)";

struct Cell {
  bool has = false;
  bool outlier = false;
  int outliers = 0;
  double worst = 0;  // the most-worse deviation, signed (negative: worse for higher-is-better)
};

// Deviation in the "worse" direction as a positive number, so cells compare alike.
double shortfall(const FleetGroup& group, double deviation) { return group.higher_is_better ? -deviation : deviation; }

std::string deviation_text(double percent) {
  // Appended, not "+" + string: GCC 12 warns falsely (-Wrestrict) on that form at -O3.
  std::string text = percent > 0 ? "+" : "";
  text += fmt(percent);
  text += "%";
  return text;
}

}  // namespace

std::string fleet_stage_of(const FleetGroup& group) { return group.group.substr(0, group.group.find('/')); }

std::string render_fleet_html(const FleetResult& result) {
  std::vector<std::string> stages;
  std::map<std::string, std::map<std::string, Cell>> cells;  // host -> stage -> cell
  for (const FleetGroup& group : result.groups) {
    const std::string stage = fleet_stage_of(group);
    if (std::find(stages.begin(), stages.end(), stage) == stages.end()) stages.push_back(stage);
    if (!group.judged) continue;
    for (const FleetSample& sample : group.samples) {
      Cell& cell = cells[sample.host][stage];
      const double worse_by = shortfall(group, sample.deviation_percent);
      if (!cell.has || worse_by > shortfall(group, cell.worst)) cell.worst = sample.deviation_percent;
      cell.has = true;
      if (sample.outlier) {
        cell.outlier = true;
        ++cell.outliers;
      }
    }
  }
  std::set<std::string> outlier_hosts;
  for (const auto& o : result.outlier_hosts) outlier_hosts.insert(o.host);
  for (const auto& o : result.outlier_gpus) outlier_hosts.insert(o.host);

  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>pipecheck fleet: " << result.runs.size() << " hosts</title>\n<style>" << kFleetStyle
      << "</style>\n</head>\n<body>\n<main>\n";
  out << "<h1>Fleet: " << result.runs.size() << " hosts " << (result.has_outliers() ? "<span class=\"badge fail\">outliers</span>" : "<span class=\"badge pass\">no outlier</span>")
      << "</h1>\n<p class=\"sub\">Each figure against the fleet median of the same measurement (GPU figures against every GPU "
      << "of the same model); worse by more than " << fmt(result.options.tolerance_percent) << "% marks an outlier. "
      << "Groups with fewer than " << result.options.min_samples << " figures are not judged.</p>\n";

  out << "<h2>Hosts x stages</h2>\n<div class=\"card\"><table class=\"fleet\">\n<thead><tr><th>host</th>";
  for (const auto& stage : stages) out << "<th>" << h(stage) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (const FleetRun& run : result.runs) {
    out << "<tr" << (outlier_hosts.count(run.host) ? " class=\"outlier-host\"" : "") << " data-host=\"" << h(run.host)
        << "\"><th>" << h(run.host) << "</th>";
    for (const auto& stage : stages) {
      const auto host_cells = cells.find(run.host);
      const Cell* cell = nullptr;
      if (host_cells != cells.end()) {
        const auto it = host_cells->second.find(stage);
        if (it != host_cells->second.end()) cell = &it->second;
      }
      if (!cell || !cell->has) {
        out << "<td class=\"cell none\">-</td>";
        continue;
      }
      out << "<td class=\"cell" << (cell->outlier ? " outlier" : "") << "\" title=\"worst figure against the fleet median"
          << (cell->outlier ? ", " + std::to_string(cell->outliers) + " outlier(s)" : "") << "\">"
          << deviation_text(cell->worst) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table></div>\n";

  auto outlier_table = [&](const char* title, const std::vector<FleetOutlier>& outliers, bool gpus) {
    out << "<h2>" << title << "</h2>\n<div class=\"card\">";
    if (outliers.empty()) {
      out << "<p class=\"note\">none</p></div>\n";
      return;
    }
    out << "<table class=\"outliers\"><thead><tr><th>host</th>" << (gpus ? "<th>GPU</th>" : "")
        << "<th>outlier figures</th><th>worst</th><th>measurement</th></tr></thead><tbody>\n";
    for (const auto& o : outliers) {
      out << "<tr><td>" << h(o.host) << "</td>";
      if (gpus) out << "<td>" << h(o.gpu) << (o.gpu_name.empty() ? "" : " (" + h(o.gpu_name) + ")") << "</td>";
      out << "<td class=\"num\">" << o.outlier_count << "</td><td class=\"num\">" << deviation_text(o.worst_deviation_percent)
          << "</td><td>" << h(o.worst_key) << "</td></tr>\n";
    }
    out << "</tbody></table></div>\n";
  };
  outlier_table("Outlier hosts", result.outlier_hosts, false);
  outlier_table("Outlier GPUs", result.outlier_gpus, true);

  out << "<h2>Measurements</h2>\n";
  for (const FleetGroup& group : result.groups) {
    const bool any_outlier = std::any_of(group.samples.begin(), group.samples.end(), [](const FleetSample& s) { return s.outlier; });
    out << "<details" << (any_outlier ? " open" : "") << "><summary>" << h(group.what.empty() ? group.group : group.what)
        << " <span class=\"note\">" << h(group.group) << (group.judged ? ", fleet median " + fmt(group.fleet_median, "%.4g") + " " + h(group.unit) : ", not judged")
        << "</span></summary><div class=\"card\"><table><thead><tr><th>host</th><th>GPU</th><th>median</th><th>vs fleet</th></tr></thead><tbody>\n";
    for (const FleetSample& s : group.samples) {
      out << "<tr><td>" << h(s.host) << "</td><td>" << h(s.gpu) << "</td><td class=\"num\">" << fmt(s.stats.median, "%.4g") << " "
          << h(group.unit) << "</td><td class=\"num" << (s.outlier ? " outlier" : "") << "\">"
          << (group.judged ? deviation_text(s.deviation_percent) : "-") << (s.outlier ? " outlier" : "") << "</td></tr>\n";
    }
    out << "</tbody></table></div></details>\n";
  }
  if (!result.notes.empty()) {
    out << "<h2>Notes</h2>\n<ul>";
    for (const auto& note : result.notes) out << "<li>" << h(note) << "</li>";
    out << "</ul>\n";
  }
  out << "<h2>Runs</h2>\n<div class=\"card\"><table><thead><tr><th>host</th><th>started (UTC)</th><th>source</th></tr></thead><tbody>\n";
  for (const FleetRun& run : result.runs) {
    out << "<tr><td>" << h(run.host) << "</td><td>" << h(run.started_utc) << "</td><td>" << h(run.source) << "</td></tr>\n";
  }
  out << "</tbody></table></div>\n</main>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace pipecheck
