// The history store and `pipecheck history`: the schema and its version, planted series written
// as real run folders and read through the real command (exactly the planted drifts, with their
// start), concurrent writers and kill -9 of a writer leaving a whole store.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <thread>

#include "core/file_io.hpp"
#include "core/temporary_folder.hpp"
#include "history/history_drift.hpp"
#include "history/history_store.hpp"
#include "tests/history_planted.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace pipecheck {
namespace {

const std::string kPipecheck = std::string(PIPECHECK_BIN_DIR) + "/pipecheck";

pid_t spawn(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct CommandResult {
  int code = -1;
  std::string out, err;
};

CommandResult pipecheck(const std::vector<std::string>& args, const fs::path& scratch) {
  std::vector<std::string> argv = {kPipecheck};
  argv.insert(argv.end(), args.begin(), args.end());
  const fs::path out = scratch / "cmd.out", err = scratch / "cmd.err";
  CommandResult r;
  r.code = wait_exit(spawn(argv, out, err));
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

// "key@start_index" of each drift, and the start date.
std::map<std::string, std::string> flags_of(const nlohmann::json& doc) {
  std::map<std::string, std::string> flags;
  for (const auto& d : doc.at("drifts")) {
    flags[d.at("host").get<std::string>() + " " + d.at("kind").get<std::string>() + " " + d.at("key").get<std::string>() +
          " @" + std::to_string(d.at("start_index").get<int>())] = d.at("started_utc").get<std::string>();
  }
  return flags;
}

std::string gpu0_link() {
  const auto inventory = test::planted_inventory(test::kPlantedHost, false);
  return "gpu0 " + inventory["gpus"][0]["pci_bdf"].get<std::string>();
}

// What `pipecheck history` must say of the planted runs: exactly these, with their starts.
void expect_planted_flags(const nlohmann::json& doc) {
  const auto flags = flags_of(doc);
  std::string all;
  for (const auto& [flag, start] : flags) all += flag + " " + start + "\n";
  ASSERT_EQ(flags.size(), 3u) << all;
  const std::string step = std::string(test::kPlantedHost) + " step memory/step/gpu0 @" + std::to_string(test::kStepAt);
  ASSERT_EQ(flags.count(step), 1u) << all;
  EXPECT_EQ(flags.at(step), test::planted_time(test::kStepAt));
  const std::string link = std::string(test::kPlantedHost) + " link " + gpu0_link() + " @" +
                           std::to_string(*test::kLinkLowRuns.begin());
  ASSERT_EQ(flags.count(link), 1u) << all;
  // The slide's start is estimated from a gentle bend: within 3 runs of where it was planted.
  bool slide = false;
  for (const auto& d : doc.at("drifts")) {
    if (d.at("key") != "hostmem/slide/threads:1") continue;
    slide = true;
    EXPECT_EQ(d.at("kind"), "slide") << all;
    EXPECT_NEAR(d.at("start_index").get<int>(), test::kSlideAt, 3) << all;
    EXPECT_LT(d.at("size_percent").get<double>(), -8) << all;
  }
  EXPECT_TRUE(slide) << all;
  for (const auto& d : doc.at("drifts")) {
    if (d.at("kind") == "link") {
      EXPECT_EQ(d.at("runs_below_max"), static_cast<int>(test::kLinkLowRuns.size()));
      EXPECT_EQ(d.at("runs"), test::kPlantedRuns);
    }
  }
}

TEST(HistoryStore, NewStoreHasTheSchemaVersionAndRefusesANewerOne) {
  TemporaryFolder dir("pipecheck-history");
  const std::string path = (dir.path() / "history.db").string();
  {
    const auto db = open_sqlite_history(path);
    EXPECT_EQ(history_schema_version(*db), 0);
    EXPECT_EQ(ensure_history_schema(*db), 0);
    EXPECT_EQ(history_schema_version(*db), kHistorySchemaVersion);
    EXPECT_EQ(ensure_history_schema(*db), kHistorySchemaVersion);  // nothing to migrate again
    db->execute("INSERT INTO schema_version (version, applied_utc) VALUES (99, 'later')");
  }
  const auto db = open_sqlite_history(path);
  try {
    load_history(*db);
    FAIL() << "a store of schema 99 was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99 is newer"), std::string::npos) << e.what();
  }
}

TEST(HistoryStore, ARunGoesInOnceWithEverything) {
  TemporaryFolder dir("pipecheck-history");
  const auto db = open_sqlite_history((dir.path() / "history.db").string());
  std::mt19937 rng(1);
  const Report report = test::planted_report("node-a", 0, rng);
  Inventory inventory = test::planted_inventory("node-a", true).get<Inventory>();
  const HistoryRun run = history_run_from(report, &inventory, "run", "/results/node-a");
  EXPECT_TRUE(append_history_run(*db, run));
  EXPECT_FALSE(append_history_run(*db, run));  // the same run again: left as it is
  const auto runs = load_history(*db);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].host, "node-a");
  EXPECT_EQ(runs[0].fingerprint, inventory_fingerprint(inventory));
  ASSERT_EQ(runs[0].measurements.size(), 4u);
  EXPECT_EQ(runs[0].measurements[0].repetitions.size(), 5u);
  EXPECT_EQ(runs[0].measurements[0].repetitions, report.probes[1].measurements[0].repetitions);
  ASSERT_FALSE(runs[0].links.empty());
  EXPECT_TRUE(runs[0].links[0].downtrained);
  EXPECT_NE(runs[0].software_json.find("kernel"), std::string::npos);
}

// mpirun -np 4 on one node: four runs of one host started in the same second, in four folders.
TEST(HistoryStore, RunsOfOneHostInTheSameSecondAreKeptApart) {
  TemporaryFolder dir("pipecheck-history");
  const auto db = open_sqlite_history((dir.path() / "history.db").string());
  std::mt19937 rng(1);
  const Report report = test::planted_report("node-a", 0, rng);
  EXPECT_TRUE(append_history_run(*db, history_run_from(report, nullptr, "run", "/r/node-a-20260101T060000Z")));
  EXPECT_TRUE(append_history_run(*db, history_run_from(report, nullptr, "run", "/r/node-a-20260101T060000Z-2")));
  // The same folder again, copied elsewhere: already there.
  EXPECT_FALSE(append_history_run(*db, history_run_from(report, nullptr, "run", "/copy/node-a-20260101T060000Z-2")));
  EXPECT_EQ(load_history(*db).size(), 2u);
}

std::vector<HistoryRun> planted_runs_in_memory() {
  std::vector<HistoryRun> runs;
  std::mt19937 rng(20260101);
  for (int r = 0; r < test::kPlantedRuns; ++r) {
    const Report report = test::planted_report(test::kPlantedHost, r, rng);
    const Inventory inventory = test::planted_inventory(test::kPlantedHost, test::kLinkLowRuns.count(r) > 0).get<Inventory>();
    runs.push_back(history_run_from(report, &inventory, "run", ""));
    runs.back().id = r + 1;
  }
  return runs;
}

TEST(HistoryDrift, StableSeriesOfFiftyRunsIsNotFlagged) {
  auto runs = planted_runs_in_memory();
  for (auto& run : runs) {
    std::erase_if(run.measurements, [](const HistoryMeasurement& m) {
      return m.key != "memory/stable/gpu0" && m.key != "memory/noisy/gpu0";
    });
    run.links.clear();
  }
  const DriftAnalysis analysis = find_drifts(runs);
  EXPECT_EQ(analysis.series, 2);
  EXPECT_TRUE(analysis.drifts.empty()) << analysis.drifts.front().evidence;
}

TEST(HistoryDrift, StepIsFoundWhereItStarts) {
  const DriftAnalysis analysis = find_drifts(planted_runs_in_memory());
  const auto step = std::find_if(analysis.drifts.begin(), analysis.drifts.end(),
                                 [](const Drift& d) { return d.key == "memory/step/gpu0"; });
  ASSERT_NE(step, analysis.drifts.end());
  EXPECT_EQ(step->kind, "step");
  EXPECT_EQ(step->start_index, test::kStepAt);
  EXPECT_NEAR(step->size_percent, -8, 1);
  EXPECT_TRUE(step->worse);
  EXPECT_LT(step->adjusted_p, 0.05);
}

TEST(HistoryDrift, TooFewRunsAreNotJudged) {
  auto runs = planted_runs_in_memory();
  runs.resize(9);
  const DriftAnalysis analysis = find_drifts(runs);
  EXPECT_EQ(analysis.series_too_short, analysis.series);
}

TEST(HistoryDrift, BusyRunsAreLeftOut) {
  auto runs = planted_runs_in_memory();
  for (std::size_t i = test::kStepAt; i < runs.size(); ++i) {
    for (auto& m : runs[i].measurements) m.other_cpu_percent = 150;
  }
  const DriftAnalysis analysis = find_drifts(runs);
  for (const auto& d : analysis.drifts) EXPECT_NE(d.key, "memory/step/gpu0") << d.evidence;
}

// 20 real `pipecheck run --quick` of a 2-CPU VM under load (tests/data/history/vm-quick-20.json,
// exported from the runs' history.db).
std::vector<HistoryRun> recorded_vm_runs() {
  const auto doc = nlohmann::json::parse(read_file(fs::path(PIPECHECK_TEST_DATA) / "history/vm-quick-20.json"));
  std::vector<HistoryRun> runs;
  for (const auto& r : doc.at("runs")) {
    HistoryRun run;
    run.id = r.at("id");
    run.host = r.at("host");
    run.command = r.at("command");
    run.started_utc = r.at("started_utc");
    run.mode = r.at("mode");
    run.overall = r.at("overall");
    for (const auto& m : r.at("measurements")) {
      HistoryMeasurement h;
      h.key = m.at("key");
      h.stage = m.at("stage");
      h.unit = m.at("unit");
      h.stats.median = m.at("median");
      h.repetitions = m.at("repetitions").get<std::vector<double>>();
      if (!m.at("noise_percent").is_null()) h.noise_percent = m.at("noise_percent").get<double>();
      if (!m.at("other_cpu_percent").is_null()) h.other_cpu_percent = m.at("other_cpu_percent").get<double>();
      run.measurements.push_back(std::move(h));
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

TEST(HistoryDrift, TwentyRealQuickRunsOfThisVmAreNotFlagged) {
  const auto runs = recorded_vm_runs();
  ASSERT_EQ(runs.size(), 20u);
  // As recorded: 516 of the 520 figures ran beside busy processes, so no series is long enough.
  const DriftAnalysis as_is = find_drifts(runs);
  EXPECT_TRUE(as_is.drifts.empty());
  EXPECT_EQ(as_is.series_too_short, as_is.series);
  // Busy runs kept: still no flag, on figures whose runs range over 78% to 209% of their median.
  DriftOptions keep;
  keep.busy_cpu_percent = std::numeric_limits<double>::infinity();
  const DriftAnalysis kept = find_drifts(runs, keep);
  EXPECT_EQ(kept.series, 26);
  EXPECT_EQ(kept.series_too_short, 0);
  EXPECT_TRUE(kept.drifts.empty()) << kept.drifts.front().key << ": " << kept.drifts.front().evidence;
}

TEST(HistoryDrift, AStepPlantedInTheRealRunsIsFoundAtItsStart) {
  // The same real runs with the steadiest figure (sequential reads of the VM's disk: 13% noise,
  // 10% spread between runs) halved from run 11. On this loaded VM a change must pass twice the
  // noise (27%); the other figures' runs spread by 30% to 77%, so no change of theirs would.
  auto runs = recorded_vm_runs();
  for (std::size_t i = 10; i < runs.size(); ++i) {
    for (auto& m : runs[i].measurements) {
      if (m.key != "storage/seq_read/vda") continue;
      m.stats.median *= 0.5;
      for (double& v : m.repetitions) v *= 0.5;
    }
  }
  DriftOptions keep;
  keep.busy_cpu_percent = std::numeric_limits<double>::infinity();
  const DriftAnalysis analysis = find_drifts(runs, keep);
  ASSERT_EQ(analysis.drifts.size(), 1u);
  EXPECT_EQ(analysis.drifts[0].key, "storage/seq_read/vda");
  EXPECT_EQ(analysis.drifts[0].start_index, 10);
}

TEST(HistoryCommand, PlantedSeriesAreFlaggedExactlyWithTheirStartSqlite) {
  TemporaryFolder dir("pipecheck-history");
  const fs::path runs = dir.path() / "runs";
  test::write_planted_runs(runs);
  const auto r = pipecheck({"history", runs.string(), "--import", runs.string(), "--json"}, dir.path());
  ASSERT_EQ(r.code, 1) << r.err;  // a drift for the worse
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("runs").size(), static_cast<std::size_t>(test::kPlantedRuns));
  EXPECT_EQ(doc.at("schema_version"), kHistorySchemaVersion);
  expect_planted_flags(doc);
  EXPECT_TRUE(fs::exists(runs / "history.html"));
  // Read again without importing: the same, from the store alone.
  const auto again = pipecheck({"history", runs.string(), "--json", "--no-html"}, dir.path());
  ASSERT_EQ(again.code, 1) << again.err;
  expect_planted_flags(nlohmann::json::parse(again.out));
}

TEST(HistoryCommand, TableHtmlAndPrometheusNameTheDrifts) {
  TemporaryFolder dir("pipecheck-history");
  const fs::path runs = dir.path() / "runs";
  test::write_planted_runs(runs);
  test::write_lemon_runs(runs);
  const fs::path prom = dir.path() / "prom";
  fs::create_directories(prom);
  const auto r = pipecheck({"history", runs.string(), "--import", runs.string(), "--prom-textfile", prom.string()},
                           dir.path());
  ASSERT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("memory/step/gpu0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("step -7.9% from 2026-01-31T06:00:00Z"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lemons: 2"), std::string::npos) << r.out;
  // The lemon node ranks first (it failed and hung), the planted node second (its drifts).
  const auto lemon_at = r.out.find("1. lemon-node");
  EXPECT_NE(lemon_at, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hang: compute: timed out"), std::string::npos) << r.out;
  const std::string html = read_file(runs / "history.html");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("stroke-dasharray"), std::string::npos);  // the step's start marked
  const std::string text = read_file(prom / "pipecheck_history.prom");
  EXPECT_NE(text.find("pipecheck_history_drift{host=\"planted-node\",key=\"memory/step/gpu0\",kind=\"step\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pipecheck_history_lemon_score{host=\"lemon-node\"} "), std::string::npos) << text;
}

TEST(HistoryCommand, BadInputIsOneLineAndExit2) {
  TemporaryFolder dir("pipecheck-history");
  auto r = pipecheck({"history", (dir.path() / "nowhere").string()}, dir.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nowhere: not a folder"), std::string::npos) << r.err;
  r = pipecheck({"history", dir.path().string()}, dir.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("history.db: no history store"), std::string::npos) << r.err;
  fs::create_directories(dir.path() / "empty");
  r = pipecheck({"history", dir.path().string(), "--import", (dir.path() / "empty").string()}, dir.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no run folder"), std::string::npos) << r.err;
  std::ofstream(dir.path() / "garbage.db") << "not a database at all, just text that is long enough to be read";
  r = pipecheck({"history", "--history", (dir.path() / "garbage.db").string()}, dir.path());
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("garbage.db"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // A server that is not there: one line naming the URL (its password hidden), exit 3.
  r = pipecheck({"history", "--history", "postgresql://me:secret@127.0.0.1:1/fleet"}, dir.path());
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("postgresql://me:***@127.0.0.1:1/fleet: cannot connect"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("secret"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(HistoryCommand, CheckAndStressAppendToTheStore) {
  TemporaryFolder dir("pipecheck-history");
  const fs::path store = dir.path() / "history.db";
  auto r = pipecheck({"check", "--fast", "--history", store.string()}, dir.path());
  ASSERT_TRUE(r.code == 0 || r.code == 1 || r.code == 4) << r.err;
  // stress writes history.db beside its --out folder by default.
  r = pipecheck({"stress", "--gpus", "none", "--cpu", "--cpu-threads", "1", "--duration", "2s", "--out",
                 (dir.path() / "stress-1").string()},
                dir.path());
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err;
  const auto db = open_sqlite_history(store.string());
  const auto runs = load_history(*db);
  ASSERT_EQ(runs.size(), 2u);
  std::set<std::string> commands;
  for (const auto& run : runs) commands.insert(run.command);
  EXPECT_EQ(commands, (std::set<std::string>{"check", "stress"}));
  for (const auto& run : runs) {
    if (run.command == "check") {
      EXPECT_FALSE(run.fingerprint.empty());
    }
    if (run.command != "stress") continue;
    ASSERT_EQ(run.measurements.size(), 1u);
    EXPECT_EQ(run.measurements[0].unit, "GFLOP/s");
    EXPECT_GT(run.measurements[0].stats.median, 0);
  }
}

int count_rows(const fs::path& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) return -1;
  sqlite3_stmt* s = nullptr;
  int n = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    n = sqlite3_column_int(s, 0);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

// Read-write: the first connection after a killed writer rolls its hot journal back (a read-only
// one could not, and says SQLITE_READONLY_ROLLBACK), as `pipecheck history` does.
std::string integrity(const fs::path& db_path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  sqlite3_stmt* s = nullptr;
  std::string text;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    text = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  } else {
    text = std::string("no answer: ") + sqlite3_errmsg(db);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return text;
}

TEST(HistoryConcurrency, TwoWritersAtOnceBothLand) {
  TemporaryFolder dir("pipecheck-history");
  const fs::path a = dir.path() / "a", b = dir.path() / "b";
  test::write_planted_runs(a, 0, 25);
  test::write_planted_runs(b, 25, test::kPlantedRuns);
  test::write_lemon_runs(b);
  const fs::path store = dir.path() / "history.db";
  // Four writers at once, two for each half: every run lands once.
  std::vector<pid_t> pids;
  for (int i = 0; i < 4; ++i) {
    const fs::path& src = i % 2 == 0 ? a : b;
    pids.push_back(spawn({kPipecheck, "history", "--history", store.string(), "--import", src.string(), "--json",
                          "--no-html"},
                         dir.path() / ("w" + std::to_string(i) + ".out"), dir.path() / ("w" + std::to_string(i) + ".err")));
  }
  for (std::size_t i = 0; i < pids.size(); ++i) {
    const int code = wait_exit(pids[i]);
    EXPECT_TRUE(code == 0 || code == 1) << read_file(dir.path() / ("w" + std::to_string(i) + ".err"));
  }
  EXPECT_EQ(count_rows(store, "SELECT COUNT(*) FROM runs"), test::kPlantedRuns + 12);
  EXPECT_EQ(count_rows(store, "SELECT COUNT(*) FROM measurements"), (test::kPlantedRuns + 12) * 4);
  EXPECT_EQ(integrity(store), "ok");
  const auto r = pipecheck({"history", "--history", store.string(), "--json"}, dir.path());
  ASSERT_EQ(r.code, 1) << r.err;
  expect_planted_flags(nlohmann::json::parse(r.out));
}

TEST(HistoryConcurrency, KillNineMidWriteLeavesAWholeStore) {
  TemporaryFolder dir("pipecheck-history");
  const fs::path runs = dir.path() / "runs";
  test::write_planted_runs(runs);
  // A fresh store each time, killed after a few ms; until a kill has landed inside a
  // transaction (its rollback journal left behind) at least twice.
  const int delays_ms[] = {10, 20, 30, 45, 60, 80, 100, 130, 160, 200};
  int mid_transaction = 0, attempts = 0;
  fs::path last_store;
  for (; attempts < 40 && (mid_transaction < 2 || attempts < 6); ++attempts) {
    const fs::path store = dir.path() / ("history-" + std::to_string(attempts) + ".db");
    last_store = store;
    const pid_t pid = spawn({kPipecheck, "history", "--history", store.string(), "--import", runs.string(),
                             "--no-html"},
                            dir.path() / "k.out", dir.path() / "k.err");
    std::this_thread::sleep_for(std::chrono::milliseconds(delays_ms[attempts % 10]));
    kill(pid, SIGKILL);
    wait_exit(pid);
    const fs::path journal = store.string() + "-journal";
    if (fs::exists(journal) && fs::file_size(journal) > 0) ++mid_transaction;
    if (!fs::exists(store)) continue;  // killed before it opened the store
    ASSERT_EQ(integrity(store), "ok") << "after kill at " << delays_ms[attempts % 10] << " ms";
    // Every run in the store is whole: all its measurements, its probes and its links.
    const int runs_in = count_rows(store, "SELECT COUNT(*) FROM runs");
    if (runs_in < 0) continue;  // killed before the schema was committed
    EXPECT_EQ(count_rows(store, "SELECT COUNT(*) FROM measurements"), runs_in * 4);
    EXPECT_EQ(count_rows(store, "SELECT COUNT(*) FROM probes"), runs_in * 2);
    EXPECT_EQ(count_rows(store, "SELECT COUNT(*) FROM runs r WHERE NOT EXISTS "
                                "(SELECT 1 FROM links l WHERE l.run_id = r.id)"),
              0);
  }
  EXPECT_GE(mid_transaction, 2) << "no writer was killed inside a transaction in " << attempts << " attempts";
  RecordProperty("kills_inside_a_transaction", mid_transaction);
  RecordProperty("attempts", attempts);
  // The store goes on: the rest lands, and the planted drifts are found.
  const auto r = pipecheck({"history", "--history", last_store.string(), "--import", runs.string(), "--json"}, dir.path());
  ASSERT_EQ(r.code, 1) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("runs").size(), static_cast<std::size_t>(test::kPlantedRuns));
  expect_planted_flags(doc);
}

}  // namespace
}  // namespace pipecheck
