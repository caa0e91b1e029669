// The database a history is kept in, behind one small interface: SQLite (a file, the default)
// or PostgreSQL (a fleet's server). The schema and every statement are shared; only the
// connection, the parameter spelling and the write lock differ between the two.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pipecheck {

using SqlValue = std::optional<std::string>;  // text, or SQL NULL
using SqlRow = std::vector<SqlValue>;

class HistoryDatabase {
 public:
  virtual ~HistoryDatabase() = default;
  // "sqlite" or "postgresql".
  virtual std::string dialect() const = 0;
  // The file, or the URL without its password: for messages.
  virtual std::string describe() const = 0;
  // A transaction that holds the store's write lock from its first statement (SQLite: BEGIN
  // IMMEDIATE, waiting up to the busy timeout; PostgreSQL: BEGIN and a transaction-level
  // advisory lock), so concurrent writers queue instead of failing.
  virtual void begin_write() = 0;
  virtual void begin_read() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // Statements use `?` for parameters (turned into $1, $2, ... for PostgreSQL). Throws
  // std::runtime_error naming the store and the database's own message.
  virtual void execute(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  virtual std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  // The DDL spelling of an auto-assigned 64-bit primary key.
  virtual std::string id_column() const = 0;
};

// A SQLite file, created when missing (its folder must exist).
std::unique_ptr<HistoryDatabase> open_sqlite_history(const std::string& path);
// A libpq connection URI (postgresql://user@host:port/db or postgres://...).
std::unique_ptr<HistoryDatabase> open_postgres_history(const std::string& url);

// `--history` as given: a postgresql:// or postgres:// URL, else a SQLite file path.
bool is_postgres_url(const std::string& text);
std::unique_ptr<HistoryDatabase> open_history_database(const std::string& location);

// Runs `body` in a write transaction, rolling back when it throws.
template <typename Body>
void in_write_transaction(HistoryDatabase& db, Body&& body) {
  db.begin_write();
  try {
    body();
    db.commit();
  } catch (...) {
    db.rollback();
    throw;
  }
}

}  // namespace pipecheck
