// What `pipecheck history` shows: the terminal table (per host and measurement, the series over
// time), the JSON document, the HTML page (one small chart per figure) and the Prometheus
// textfile with the drift and lemon flags. All read the same records.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history_drift.hpp"
#include "history/history_lemons.hpp"
#include "history/history_record.hpp"

namespace pipecheck {

struct HistoryView {
  std::string store;  // the file or URL (without password)
  int schema_version = 0;
  std::vector<HistoryRun> runs;
  DriftAnalysis analysis;
  std::vector<LemonHost> lemons;
  DriftOptions options;
};

HistoryView build_history_view(std::string store, int schema_version, std::vector<HistoryRun> runs,
                               const DriftOptions& options = {});

std::string render_history_text(const HistoryView& view);
nlohmann::json history_to_json(const HistoryView& view);
std::string render_history_html(const HistoryView& view);
// node_exporter's textfile format: pipecheck_history_drift{host,key,kind} (the size, % or % of
// runs for a link), pipecheck_history_lemon_score{host}, pipecheck_history_runs{host}.
std::string render_history_prom(const HistoryView& view);

}  // namespace pipecheck
