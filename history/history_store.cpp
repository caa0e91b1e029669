// Schema, migrations, append and load. A run is one transaction: a writer killed half-way
// leaves no trace of that run (the database rolls it back), and a finished run is all there.
#include "history/history_store.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/file_io.hpp"

namespace fs = std::filesystem;

namespace pipecheck {

namespace {

// Migration N takes a store from version N-1 to N. "{ID}" is the dialect's auto-assigned key.
const std::vector<std::vector<std::string>>& migrations() {
  static const std::vector<std::vector<std::string>> steps = {
      // 1: runs, their probes, measurements (with repetitions), adverse verdicts, links, faults.
      {
          "CREATE TABLE runs ("
          " id {ID},"
          " host TEXT NOT NULL,"
          " command TEXT NOT NULL,"
          " started_utc TEXT NOT NULL,"
          " finished_utc TEXT,"
          " mode TEXT,"
          " overall TEXT,"
          " pipecheck_version TEXT,"
          " report_version INTEGER,"
          " fingerprint TEXT,"
          " software TEXT,"
          " source TEXT,"
          " run_name TEXT NOT NULL,"
          " recorded_utc TEXT NOT NULL,"
          " UNIQUE (host, command, started_utc, run_name))",
          "CREATE INDEX runs_by_host ON runs (host, started_utc)",
          "CREATE TABLE probes ("
          " run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
          " stage TEXT NOT NULL, probe TEXT, status TEXT NOT NULL, reason TEXT,"
          " seconds DOUBLE PRECISION, conditions TEXT)",
          "CREATE INDEX probes_by_run ON probes (run_id)",
          "CREATE TABLE measurements ("
          " run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
          " measurement_key TEXT NOT NULL, stage TEXT NOT NULL, what TEXT, unit TEXT,"
          " median DOUBLE PRECISION, min_value DOUBLE PRECISION, max_value DOUBLE PRECISION,"
          " samples INTEGER, repetitions TEXT, noise_percent DOUBLE PRECISION,"
          " percent_of_ceiling DOUBLE PRECISION, verdict TEXT, other_cpu_percent DOUBLE PRECISION)",
          "CREATE INDEX measurements_by_run ON measurements (run_id)",
          "CREATE TABLE verdicts ("
          " run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
          " subject TEXT NOT NULL, stage TEXT, verdict TEXT NOT NULL, explanation TEXT)",
          "CREATE INDEX verdicts_by_run ON verdicts (run_id)",
          "CREATE TABLE links ("
          " run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
          " device TEXT NOT NULL, current_gts DOUBLE PRECISION, current_width INTEGER,"
          " max_gts DOUBLE PRECISION, max_width INTEGER, downtrained INTEGER NOT NULL)",
          "CREATE INDEX links_by_run ON links (run_id)",
          "CREATE TABLE faults ("
          " run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
          " kind TEXT NOT NULL, detail TEXT)",
          "CREATE INDEX faults_by_run ON faults (run_id)",
      },
  };
  return steps;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

SqlValue text_of(const std::string& s) { return s; }
SqlValue number(double v) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, end);
}
SqlValue number(const std::optional<double>& v) { return v ? number(*v) : SqlValue{}; }
SqlValue integer(long long v) { return std::to_string(v); }
SqlValue integer(const std::optional<int>& v) { return v ? integer(*v) : SqlValue{}; }

std::string str(const SqlValue& v) { return v.value_or(""); }
std::optional<double> opt_double(const SqlValue& v) {
  if (!v || v->empty()) return std::nullopt;
  return std::stod(*v);
}
double dbl(const SqlValue& v) { return opt_double(v).value_or(0); }
std::optional<int> opt_int(const SqlValue& v) {
  if (!v || v->empty()) return std::nullopt;
  return static_cast<int>(std::stoll(*v));
}
std::int64_t id_of(const SqlValue& v) { return v ? std::stoll(*v) : 0; }

bool table_exists(HistoryDatabase& db, const std::string& table) {
  const std::string sql = db.dialect() == "sqlite"
                              ? "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
                              : "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
                                "AND table_name = ?";
  return !db.query(sql, {table}).empty();
}

int read_version(HistoryDatabase& db) {
  if (!table_exists(db, "schema_version")) return 0;
  const auto rows = db.query("SELECT MAX(version) FROM schema_version");
  return rows.empty() ? 0 : opt_int(rows[0][0]).value_or(0);
}

void check_not_newer(const HistoryDatabase& db, int version) {
  if (version > kHistorySchemaVersion) {
    throw std::runtime_error("history store " + db.describe() + ": schema version " + std::to_string(version) +
                             " is newer than this pipecheck's " + std::to_string(kHistorySchemaVersion) +
                             " (update pipecheck to read or write it)");
  }
}

// Inside a write transaction.
int migrate(HistoryDatabase& db) {
  const int found = read_version(db);
  check_not_newer(db, found);
  if (found == 0 && !table_exists(db, "schema_version")) {
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, applied_utc TEXT NOT NULL)");
  }
  const auto& steps = migrations();
  for (int v = found + 1; v <= kHistorySchemaVersion; ++v) {
    for (const auto& statement : steps[static_cast<std::size_t>(v - 1)]) {
      db.execute(replace_all(statement, "{ID}", db.id_column()));
    }
    db.execute("INSERT INTO schema_version (version, applied_utc) VALUES (?, ?)", {integer(v), utc_now_iso()});
  }
  return found;
}

std::string repetitions_json(const std::vector<double>& values) { return nlohmann::json(values).dump(); }

std::vector<double> repetitions_from(const SqlValue& text) {
  if (!text || text->empty()) return {};
  const auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_array()) return {};
  std::vector<double> values;
  for (const auto& v : j) {
    if (v.is_number()) values.push_back(v.get<double>());
  }
  return values;
}

}  // namespace

int history_schema_version(HistoryDatabase& db) {
  db.begin_read();
  try {
    const int v = read_version(db);
    db.commit();
    return v;
  } catch (...) {
    db.rollback();
    throw;
  }
}

int ensure_history_schema(HistoryDatabase& db) {
  int found = 0;
  in_write_transaction(db, [&] { found = migrate(db); });
  return found;
}

bool append_history_run(HistoryDatabase& db, const HistoryRun& run) {
  bool added = false;
  in_write_transaction(db, [&] {
    migrate(db);
    // The folder's name tells apart runs of one host started in the same second (mpirun -np 4
    // on one node), and finds a run again when its folder was copied elsewhere.
    const std::string name = run.source.empty() ? "" : fs::path(run.source).filename().string();
    if (!db.query("SELECT id FROM runs WHERE host = ? AND command = ? AND started_utc = ? AND run_name = ?",
                  {run.host, run.command, run.started_utc, name})
             .empty()) {
      return;
    }
    const auto rows = db.query(
        "INSERT INTO runs (host, command, started_utc, finished_utc, mode, overall, pipecheck_version, "
        "report_version, fingerprint, software, source, run_name, recorded_utc) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "RETURNING id",
        {run.host, run.command, run.started_utc, run.finished_utc, run.mode, run.overall, run.pipecheck_version,
         integer(run.report_version), run.fingerprint, run.software_json, run.source, name, utc_now_iso()});
    const SqlValue id = rows.at(0).at(0);
    for (const auto& p : run.probes) {
      db.execute("INSERT INTO probes (run_id, stage, probe, status, reason, seconds, conditions) VALUES (?, ?, ?, ?, ?, ?, ?)",
                 {id, p.stage, p.probe, p.status, p.reason, number(p.seconds),
                  p.conditions_json.empty() ? SqlValue{} : text_of(p.conditions_json)});
    }
    for (const auto& m : run.measurements) {
      db.execute(
          "INSERT INTO measurements (run_id, measurement_key, stage, what, unit, median, min_value, max_value, samples, "
          "repetitions, noise_percent, percent_of_ceiling, verdict, other_cpu_percent) "
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {id, m.key, m.stage, m.what, m.unit, number(m.stats.median), number(m.stats.min), number(m.stats.max),
           integer(m.stats.samples), repetitions_json(m.repetitions), number(m.noise_percent),
           number(m.percent_of_ceiling), m.verdict, number(m.other_cpu_percent)});
    }
    for (const auto& v : run.verdicts) {
      db.execute("INSERT INTO verdicts (run_id, subject, stage, verdict, explanation) VALUES (?, ?, ?, ?, ?)",
                 {id, v.subject, v.stage, v.verdict, v.explanation});
    }
    for (const auto& l : run.links) {
      db.execute(
          "INSERT INTO links (run_id, device, current_gts, current_width, max_gts, max_width, downtrained) "
          "VALUES (?, ?, ?, ?, ?, ?, ?)",
          {id, l.device, number(l.current_gts), integer(l.current_width), number(l.max_gts), integer(l.max_width),
           integer(l.downtrained ? 1 : 0)});
    }
    for (const auto& f : run.faults) {
      db.execute("INSERT INTO faults (run_id, kind, detail) VALUES (?, ?, ?)", {id, f.kind, f.detail});
    }
    added = true;
  });
  return added;
}

std::vector<HistoryRun> load_history(HistoryDatabase& db) {
  std::vector<HistoryRun> runs;
  db.begin_read();
  try {
    const int version = read_version(db);
    check_not_newer(db, version);
    if (version == 0) {
      db.commit();
      return runs;
    }
    std::map<std::int64_t, std::size_t> index;
    for (const auto& r : db.query(
             "SELECT id, host, command, started_utc, finished_utc, mode, overall, pipecheck_version, report_version, "
             "fingerprint, software, source FROM runs ORDER BY started_utc, id")) {
      HistoryRun run;
      run.id = id_of(r[0]);
      run.host = str(r[1]);
      run.command = str(r[2]);
      run.started_utc = str(r[3]);
      run.finished_utc = str(r[4]);
      run.mode = str(r[5]);
      run.overall = str(r[6]);
      run.pipecheck_version = str(r[7]);
      run.report_version = opt_int(r[8]).value_or(0);
      run.fingerprint = str(r[9]);
      run.software_json = str(r[10]);
      run.source = str(r[11]);
      index[run.id] = runs.size();
      runs.push_back(std::move(run));
    }
    auto owner = [&](const SqlValue& id) -> HistoryRun* {
      const auto at = index.find(id_of(id));
      return at == index.end() ? nullptr : &runs[at->second];
    };
    for (const auto& r : db.query("SELECT run_id, stage, probe, status, reason, seconds, conditions FROM probes")) {
      if (HistoryRun* run = owner(r[0])) {
        run->probes.push_back({str(r[1]), str(r[2]), str(r[3]), str(r[4]), dbl(r[5]), str(r[6])});
      }
    }
    for (const auto& r : db.query(
             "SELECT run_id, measurement_key, stage, what, unit, median, min_value, max_value, samples, repetitions, "
             "noise_percent, percent_of_ceiling, verdict, other_cpu_percent FROM measurements")) {
      HistoryRun* run = owner(r[0]);
      if (run == nullptr) continue;
      HistoryMeasurement m;
      m.key = str(r[1]);
      m.stage = str(r[2]);
      m.what = str(r[3]);
      m.unit = str(r[4]);
      m.stats = {dbl(r[5]), dbl(r[6]), dbl(r[7]), opt_int(r[8]).value_or(0)};
      m.repetitions = repetitions_from(r[9]);
      m.noise_percent = opt_double(r[10]);
      m.percent_of_ceiling = opt_double(r[11]);
      m.verdict = str(r[12]);
      m.other_cpu_percent = opt_double(r[13]);
      run->measurements.push_back(std::move(m));
    }
    for (const auto& r : db.query("SELECT run_id, subject, stage, verdict, explanation FROM verdicts")) {
      if (HistoryRun* run = owner(r[0])) run->verdicts.push_back({str(r[1]), str(r[2]), str(r[3]), str(r[4])});
    }
    for (const auto& r : db.query(
             "SELECT run_id, device, current_gts, current_width, max_gts, max_width, downtrained FROM links")) {
      if (HistoryRun* run = owner(r[0])) {
        run->links.push_back({str(r[1]), opt_double(r[2]), opt_int(r[3]), opt_double(r[4]), opt_int(r[5]),
                              opt_int(r[6]).value_or(0) != 0});
      }
    }
    for (const auto& r : db.query("SELECT run_id, kind, detail FROM faults")) {
      if (HistoryRun* run = owner(r[0])) run->faults.push_back({str(r[1]), str(r[2])});
    }
    db.commit();
  } catch (...) {
    db.rollback();
    throw;
  }
  for (auto& run : runs) {
    std::sort(run.measurements.begin(), run.measurements.end(),
              [](const HistoryMeasurement& a, const HistoryMeasurement& b) { return a.key < b.key; });
  }
  return runs;
}

}  // namespace pipecheck
