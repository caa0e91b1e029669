// Appending runs to the history: from a command that just finished, or from run folders.
#include "history/history_append.hpp"

#include <algorithm>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/file_io.hpp"
#include "core/json_records.hpp"
#include "core/text_escape.hpp"
#include "history/history_record.hpp"
#include "history/history_store.hpp"

namespace fs = std::filesystem;

namespace pipecheck {

std::string history_location(const std::string& location, const fs::path& out_dir) {
  return location.empty() ? (out_dir / kHistoryFileName).string() : location;
}

bool record_in_history(const std::string& location, const fs::path& out_dir, const Report& report,
                       const Inventory* inventory, const std::string& command, const fs::path& folder,
                       std::ostream& err) {
  return record_in_history(history_location(location, out_dir),
                           history_run_from(report, inventory, command, folder.string()), err);
}

bool record_in_history(const std::string& location, const HistoryRun& run, std::ostream& err) {
  try {
    const auto db = open_history_database(location);
    append_history_run(*db, run);
    return true;
  } catch (const std::exception& e) {
    err << "pipecheck: history not recorded: " << message_line(e.what()) << "\n";
    return false;
  }
}

namespace {

// Reads one folder; false when it holds no finished run.
bool import_one(HistoryDatabase& db, const fs::path& folder, ImportResult& result, std::ostream& err) {
  const fs::path report_path = folder / "report.json";
  std::error_code ec;
  if (!fs::is_regular_file(report_path, ec)) return false;
  if (folder.extension() == ".incomplete") {
    ++result.unfinished;
    return true;
  }
  Report report;
  try {
    report = report_from_json(nlohmann::json::parse(read_file(report_path)));
  } catch (const std::exception& e) {
    throw UsageError(escape_name(report_path.string()) + ": not a pipecheck report: " + e.what());
  }
  std::optional<Inventory> inventory;
  const fs::path inventory_path = folder / "inventory.json";
  if (fs::is_regular_file(inventory_path, ec)) {
    try {
      inventory = nlohmann::json::parse(read_file(inventory_path)).get<Inventory>();
    } catch (const std::exception& e) {
      err << "pipecheck history: " << escape_name(inventory_path.string()) << ": not read (" << message_line(e.what())
          << "); imported without it\n";
    }
  }
  const bool added = append_history_run(db, history_run_from(report, inventory ? &*inventory : nullptr, "run",
                                                             fs::absolute(folder).lexically_normal().string()));
  ++(added ? result.added : result.already);
  return true;
}

}  // namespace

ImportResult import_run_folders(HistoryDatabase& db, const fs::path& dir, std::ostream& err) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("--import " + escape_name(dir.string()) + ": not a folder");
  ImportResult result;
  if (import_one(db, dir, result, err)) return result;
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec)) folders.push_back(entry.path());
  }
  if (ec) throw UsageError("--import " + escape_name(dir.string()) + ": cannot list: " + ec.message());
  std::sort(folders.begin(), folders.end());
  bool any = false;
  for (const auto& folder : folders) any = import_one(db, folder, result, err) || any;
  if (!any) throw UsageError("--import " + escape_name(dir.string()) + ": no run folder (none holds a report.json)");
  return result;
}

}  // namespace pipecheck
