// The PostgreSQL store (Debian's libpq) for a fleet: every node writes to one server. A writer
// takes a transaction-level advisory lock first, so the schema's creation and migrations never
// race and "is this run there yet" is answered under the lock; a run is one short transaction,
// so a fleet's writers queue for milliseconds. Readers take no lock.
#include <libpq-fe.h>

#include <stdexcept>

#include "history/history_database.hpp"

namespace pipecheck {

namespace {

// pg_advisory_xact_lock's key for "the pipecheck history schema".
constexpr const char* kSchemaLockKey = "7306261727";

// The URL without its password, for messages.
std::string without_password(const std::string& url) {
  const auto scheme = url.find("://");
  const auto at = url.find('@');
  if (scheme == std::string::npos || at == std::string::npos || at < scheme) return url;
  const auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon) + ":***" + url.substr(at);
}

// `?` to `$1`, `$2`, ... (no statement of ours has a `?` inside a string literal).
std::string numbered_parameters(const std::string& sql) {
  std::string out;
  int n = 0;
  for (const char c : sql) {
    if (c == '?') {
      out += '$';  // appended apart: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

class PostgresDatabase final : public HistoryDatabase {
 public:
  explicit PostgresDatabase(const std::string& url) : name_(without_password(url)) {
    conn_ = PQconnectdb(url.c_str());
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
      std::string why = conn_ != nullptr ? PQerrorMessage(conn_) : "out of memory";
      while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
      for (char& c : why) {
        if (c == '\n') c = ' ';
      }
      PQfinish(conn_);
      conn_ = nullptr;
      throw std::runtime_error("history store " + name_ + ": cannot connect: " + why);
    }
    execute("SET client_min_messages = warning");
  }
  ~PostgresDatabase() override { PQfinish(conn_); }

  std::string dialect() const override { return "postgresql"; }
  std::string describe() const override { return name_; }
  std::string id_column() const override { return "BIGSERIAL PRIMARY KEY"; }

  void begin_write() override {
    execute("BEGIN");
    in_transaction_ = true;
    execute(std::string("SELECT pg_advisory_xact_lock(") + kSchemaLockKey + ")");
  }
  void begin_read() override {
    execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
    in_transaction_ = true;
  }
  void commit() override {
    in_transaction_ = false;
    execute("COMMIT");
  }
  void rollback() noexcept override {
    if (!in_transaction_) return;
    in_transaction_ = false;
    PQclear(PQexec(conn_, "ROLLBACK"));
  }

  void execute(const std::string& sql, const std::vector<SqlValue>& params = {}) override { run(sql, params, nullptr); }
  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params = {}) override {
    std::vector<SqlRow> rows;
    run(sql, params, &rows);
    return rows;
  }

 private:
  void run(const std::string& sql, const std::vector<SqlValue>& params, std::vector<SqlRow>* rows) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    const std::string text = numbered_parameters(sql);
    PGresult* result = PQexecParams(conn_, text.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                    nullptr, nullptr, 0);
    struct Clear {
      PGresult* r;
      ~Clear() { PQclear(r); }
    } clear{result};
    const ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      std::string why = PQresultErrorMessage(result);
      while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
      for (char& c : why) {
        if (c == '\n') c = ' ';
      }
      throw std::runtime_error("history store " + name_ + ": '" + sql.substr(0, 60) + "' failed: " + why);
    }
    if (rows == nullptr) return;
    const int n = PQntuples(result);
    const int columns = PQnfields(result);
    for (int r = 0; r < n; ++r) {
      SqlRow row;
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(result, r, c)) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(std::string(PQgetvalue(result, r, c), static_cast<std::size_t>(PQgetlength(result, r, c))));
        }
      }
      rows->push_back(std::move(row));
    }
  }

  std::string name_;
  PGconn* conn_ = nullptr;
  bool in_transaction_ = false;
};

}  // namespace

bool is_postgres_url(const std::string& text) {
  return text.rfind("postgresql://", 0) == 0 || text.rfind("postgres://", 0) == 0;
}

std::unique_ptr<HistoryDatabase> open_postgres_history(const std::string& url) {
  return std::make_unique<PostgresDatabase>(url);
}

std::unique_ptr<HistoryDatabase> open_history_database(const std::string& location) {
  if (is_postgres_url(location)) return open_postgres_history(location);
  return open_sqlite_history(location);
}

}  // namespace pipecheck
