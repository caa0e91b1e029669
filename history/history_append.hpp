// Where runs enter the history: `run`, `check` and `stress` call record_in_history once their
// results are complete; `pipecheck history --import DIR` reads existing run folders.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>

#include "core/inventory.hpp"
#include "history/history_database.hpp"
#include "history/history_record.hpp"
#include "report/report.hpp"

namespace pipecheck {

// The store a command writes: `location` as given (--history), else OUT/history.db.
std::string history_location(const std::string& location, const std::filesystem::path& out_dir);

// Appends the run to the store. Never fails the run (a history that cannot be written is said
// on `err` with the store's name and why); returns whether it was recorded.
bool record_in_history(const std::string& location, const std::filesystem::path& out_dir, const Report& report,
                       const Inventory* inventory, const std::string& command, const std::filesystem::path& folder,
                       std::ostream& err);

// Appends a record built elsewhere (check, stress) to the store at `location`; the same
// never-fail rule.
bool record_in_history(const std::string& location, const HistoryRun& run, std::ostream& err);

struct ImportResult {
  int added = 0;
  int already = 0;     // recorded before (same host, command and start)
  int unfinished = 0;  // folders left .incomplete by an interrupted run, or without report.json
};

// Each run folder at `dir` (a folder holding report.json) or directly under it. Throws
// UsageError when `dir` is not a folder or holds no run folder.
ImportResult import_run_folders(HistoryDatabase& db, const std::filesystem::path& dir, std::ostream& err);

}  // namespace pipecheck
