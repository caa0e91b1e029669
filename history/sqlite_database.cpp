// The SQLite store (Debian's libsqlite3): one file, rollback journal, a busy timeout so that a
// writer waits for another instead of failing, and BEGIN IMMEDIATE so that the wait happens at
// the start of a transaction, never half-way (where SQLite could only give up).
#include <sqlite3.h>

#include <stdexcept>

#include "history/history_database.hpp"

namespace pipecheck {

namespace {

constexpr int kBusyTimeoutMs = 120000;

class SqliteDatabase final : public HistoryDatabase {
 public:
  explicit SqliteDatabase(std::string path) : path_(std::move(path)) {
    const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) {
      const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      throw std::runtime_error("history store " + path_ + ": cannot open: " + why);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    sqlite3_extended_result_codes(db_, 1);
    execute("PRAGMA foreign_keys = ON");
    // FULL: a commit is on the disk before the run says it is recorded (a power cut, not only
    // kill -9, leaves every reported run in the store).
    execute("PRAGMA synchronous = FULL");
  }
  ~SqliteDatabase() override { sqlite3_close_v2(db_); }

  std::string dialect() const override { return "sqlite"; }
  std::string describe() const override { return path_; }
  std::string id_column() const override { return "INTEGER PRIMARY KEY"; }

  void begin_write() override { execute("BEGIN IMMEDIATE"); }
  void begin_read() override { execute("BEGIN"); }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override {
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

  void execute(const std::string& sql, const std::vector<SqlValue>& params = {}) override { run(sql, params, nullptr); }
  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params = {}) override {
    std::vector<SqlRow> rows;
    run(sql, params, &rows);
    return rows;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("history store " + path_ + ": " + what + ": " + sqlite3_errmsg(db_));
  }

  void run(const std::string& sql, const std::vector<SqlValue>& params, std::vector<SqlRow>* rows) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &statement, nullptr) != SQLITE_OK) {
      fail("cannot prepare '" + sql.substr(0, 60) + "'");
    }
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{statement};
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      const int rc = params[i] ? sqlite3_bind_text(statement, index, params[i]->c_str(),
                                                   static_cast<int>(params[i]->size()), SQLITE_TRANSIENT)
                               : sqlite3_bind_null(statement, index);
      if (rc != SQLITE_OK) fail("cannot bind parameter " + std::to_string(index));
    }
    for (;;) {
      const int rc = sqlite3_step(statement);
      if (rc == SQLITE_DONE) return;
      if (rc != SQLITE_ROW) {
        std::string what = "'";  // appended apart: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
        what += sql.substr(0, 60);
        what += "' failed";
        fail(what);
      }
      if (rows == nullptr) continue;
      SqlRow row;
      const int columns = sqlite3_column_count(statement);
      for (int c = 0; c < columns; ++c) {
        if (sqlite3_column_type(statement, c) == SQLITE_NULL) {
          row.emplace_back(std::nullopt);
        } else {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, c));
          row.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, c))));
        }
      }
      rows->push_back(std::move(row));
    }
  }

  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<HistoryDatabase> open_sqlite_history(const std::string& path) {
  return std::make_unique<SqliteDatabase>(path);
}

}  // namespace pipecheck
