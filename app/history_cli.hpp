// `pipecheck history [DIR]`: every run kept in the history store (DIR/history.db, or
// --history URL), per host and measurement the series over time, the drifts against each
// node's own past and the lemon nodes. Exit 0 nothing flagged, 1 a drift for the worse or a
// flapping link, 2 bad input, 3 the store could not be read.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pipecheck {

struct HistoryCliState {
  std::string dir = "results";         // the runs' --out: its history.db
  std::string history;                 // a store given directly: a SQLite file or postgresql:// URL
  std::vector<std::string> imports;    // run folders (or folders of them) to add first
  bool json = false;
  std::string html;                    // the page's path; "" = DIR/history.html for DIR's store
  bool no_html = false;
  std::string prom_textfile;           // a folder for pipecheck_history.prom
  bool include_busy = false;           // keep runs whose probe ran under busy conditions
  std::optional<double> threshold_percent;
};

CLI::App* add_history_command(CLI::App& app, HistoryCliState& state);
int run_history_command(const HistoryCliState& state, std::ostream& out, std::ostream& err);

}  // namespace pipecheck
