// `pipecheck history` (see history_cli.hpp).
#include "app/history_cli.hpp"

#include <filesystem>
#include <iostream>
#include <limits>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/text_escape.hpp"
#include "history/history_append.hpp"
#include "history/history_render.hpp"
#include "history/history_store.hpp"
#include "render/render_files.hpp"

namespace fs = std::filesystem;

namespace pipecheck {

CLI::App* add_history_command(CLI::App& app, HistoryCliState& s) {
  auto* cmd = app.add_subcommand(
      "history",
      "Every node's runs over time: drifts against its own past, flapping links, lemon nodes; "
      "exit 0 nothing flagged, 1 a drift for the worse or a flapping link");
  cmd->add_option("dir", s.dir, "The runs' --out folder; its history.db is read")->capture_default_str();
  cmd->add_option("--history", s.history, "The store instead: a SQLite file or postgresql://user@host/db");
  cmd->add_option("--import", s.imports, "Add existing run folders first: a run folder or a folder of them (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", s.json, "JSON instead of the table: {\"runs\": [...], \"drifts\": [...], \"lemons\": [...]}");
  cmd->add_option("--html", s.html, "Write the page (one chart per figure) here (default DIR/history.html)");
  cmd->add_flag("--no-html", s.no_html, "No HTML page");
  cmd->add_option("--prom-textfile", s.prom_textfile,
                  "Also write pipecheck_history.prom (drift and lemon flags) into this folder, atomically");
  cmd->add_flag("--include-busy", s.include_busy,
                "Keep runs whose probe ran while other processes were busy (left out by default, as compare does)");
  cmd->add_option("--threshold", s.threshold_percent, "Smallest change of a median that counts, % (default 3)")
      ->check(CLI::Range(0.0, 1000.0));
  return cmd;
}

int run_history_command(const HistoryCliState& s, std::ostream& out, std::ostream& err) {
  const bool default_store = s.history.empty();
  if (default_store) {
    std::error_code ec;
    if (!fs::is_directory(s.dir, ec)) {
      if (s.imports.empty()) throw UsageError(escape_name(s.dir) + ": not a folder (the runs' --out, e.g. results)");
      fs::create_directories(s.dir, ec);
      if (ec) throw UsageError(escape_name(s.dir) + ": cannot create: " + ec.message());
    }
  }
  const std::string location = history_location(s.history, s.dir);
  if (!is_postgres_url(location) && s.imports.empty()) {
    std::error_code ec;
    if (!fs::is_regular_file(location, ec)) {
      throw UsageError(escape_name(location) + ": no history store (runs write it; --import DIR reads existing run folders)");
    }
  }
  if (!s.prom_textfile.empty()) check_prom_textfile_dir(s.prom_textfile);

  const auto db = open_history_database(location);
  for (const auto& dir : s.imports) {
    const ImportResult r = import_run_folders(*db, dir, err);
    err << "pipecheck history: imported " << r.added << " run(s) from " << escape_name(dir) << " (" << r.already
        << " already there, " << r.unfinished << " unfinished left out)\n";
  }
  DriftOptions options;
  if (s.include_busy) options.busy_cpu_percent = std::numeric_limits<double>::infinity();
  if (s.threshold_percent) options.threshold_percent = *s.threshold_percent;
  std::vector<HistoryRun> runs = load_history(*db);
  const int version = history_schema_version(*db);
  const HistoryView view = build_history_view(db->describe(), version, std::move(runs), options);

  if (s.json) {
    out << json_text(history_to_json(view)) << "\n";
  } else {
    out << render_history_text(view);
  }
  if (!s.no_html && (!s.html.empty() || default_store)) {
    const fs::path page = s.html.empty() ? fs::path(s.dir) / "history.html" : fs::path(s.html);
    write_file_atomically(page, render_history_html(view));
    if (!s.json) out << "\npage: " << escape_name(page.string()) << "\n";
  }
  if (!s.prom_textfile.empty()) {
    const fs::path file = fs::path(s.prom_textfile) / "pipecheck_history.prom";
    write_file_atomically(file, render_history_prom(view));
    if (!s.json) out << "prometheus: " << escape_name(file.string()) << "\n";
  }
  for (const auto& d : view.analysis.drifts) {
    if (d.worse) return 1;
  }
  return 0;
}

}  // namespace pipecheck
