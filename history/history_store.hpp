// The history store: the schema (one, versioned, with migrations), appending one run in one
// transaction, and reading every finished run back. The same statements serve SQLite and
// PostgreSQL (history_database.hpp).
#pragma once

#include <string>
#include <vector>

#include "history/history_database.hpp"
#include "history/history_record.hpp"

namespace pipecheck {

// The schema this pipecheck writes and reads. A store with a newer version is refused (by name
// and both versions), an older one is migrated in the same transaction as the first write.
inline constexpr int kHistorySchemaVersion = 1;

// The default store of a results folder: DIR/history.db.
inline constexpr char kHistoryFileName[] = "history.db";

// Creates or migrates the schema (under the store's write lock); returns the version found
// before (0 for a new store).
int ensure_history_schema(HistoryDatabase& db);
// The version recorded in the store, 0 when it has no schema yet.
int history_schema_version(HistoryDatabase& db);

// Appends the run in one transaction (schema included). A run already recorded (same host,
// command, start and results folder name) is left as it is: returns false then, true when added.
bool append_history_run(HistoryDatabase& db, const HistoryRun& run);

// Every recorded run with its measurements, links, faults and adverse verdicts, oldest first
// (by start time, then id).
std::vector<HistoryRun> load_history(HistoryDatabase& db);

}  // namespace pipecheck
