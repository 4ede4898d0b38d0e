// SPDX-License-Identifier: Apache-2.0
// The archive's PostgreSQL engine (sql_connection.hpp), through libpq. The connection URI never
// holds a password (archive_location.cpp refuses one); libpq reads credentials from its own
// environment (PGPASSWORD, PGSERVICE), service file and ~/.pgpass.
#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>

#include <charconv>
#include <cstdlib>

#include "archive/sql_connection.hpp"

namespace storqual::reporting {
namespace {

// PostgreSQL's type oids (catalog/pg_type.dat) of the integer and floating columns it returns.
constexpr Oid kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701;
// The one advisory lock every writer of a storqual archive takes (docs/archive.md), waited for as
// long as SQLite's busy timeout (archive_lock_wait_s(); lock_timeout covers advisory locks too),
// and how long a connection attempt may take when the connection string does not say.
constexpr const char* kWriterLock = "SELECT pg_advisory_xact_lock(290029)";
constexpr const char* kConnectTimeoutS = "10";

std::string to_text(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(std::string url) : url_(std::move(url)) {
    // connect_timeout first: the connection string's own (expand_dbname) wins over it.
    const char* keys[] = {"connect_timeout", "dbname", nullptr};
    const char* values[] = {kConnectTimeoutS, url_.c_str(), nullptr};
    conn_ = PQconnectdbParams(keys, values, 1);
  }
  void prepare(ArchiveAccess access) {
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK)
      throw ArchiveError(where() + ": cannot connect: " + message());
    // Quiet notices ("relation already exists, skipping") and exact doubles both ways.
    execute_script("SET client_min_messages=warning; SET extra_float_digits=3");
    if (access == ArchiveAccess::Read) execute_script("SET default_transaction_read_only = on");
  }
  ~PostgresConnection() override {
    if (in_transaction_) rollback();
    PQfinish(conn_);
  }
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;

  [[nodiscard]] std::string_view engine() const noexcept override { return "postgresql"; }

  void execute_script(const std::string& sql) override {
    PGresult* res = PQexec(conn_, sql.c_str());
    check(res, PGRES_COMMAND_OK);
    PQclear(res);
  }

  std::vector<SqlRow> query(const std::string& sql, const SqlRow& params) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const SqlCell& p = params[i];
      if (std::holds_alternative<std::monostate>(p)) continue;
      if (const auto* v = std::get_if<std::int64_t>(&p)) texts[i] = std::to_string(*v);
      if (const auto* v = std::get_if<double>(&p)) texts[i] = to_text(*v);
      if (const auto* v = std::get_if<std::string>(&p)) texts[i] = *v;
      values[i] = texts[i].c_str();
    }
    PGresult* res = PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
    const ExecStatusType status = PQresultStatus(res);
    check(res, status == PGRES_TUPLES_OK ? PGRES_TUPLES_OK : PGRES_COMMAND_OK);
    std::vector<SqlRow> rows;
    const int n = PQntuples(res), columns = PQnfields(res);
    for (int r = 0; r < n; ++r) {
      SqlRow row;
      for (int c = 0; c < columns; ++c) row.push_back(cell(res, r, c));
      rows.push_back(std::move(row));
    }
    PQclear(res);
    return rows;
  }

  void begin_write() override {
    execute_script("BEGIN");
    in_transaction_ = true;
    const int wait_s = archive_lock_wait_s();
    execute_script("SET LOCAL lock_timeout = '" + std::to_string(wait_s) + "s'");
    PGresult* res = wait_for_lock();
    if (res && PQresultStatus(res) != PGRES_TUPLES_OK) {
      const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
      if (state && std::string_view(state) == "55P03") {  // lock_not_available
        PQclear(res);
        throw ArchiveError(where() +
                           ": the archive's writer lock was held by another writer for longer "
                           "than " +
                           std::to_string(wait_s) +
                           " s (pg_advisory_xact_lock(290029)); nothing recorded");
      }
    }
    check(res, PGRES_TUPLES_OK);
    PQclear(res);
  }
  void begin_read() override {
    execute_script("BEGIN ISOLATION LEVEL REPEATABLE READ");
    in_transaction_ = true;
  }
  void commit() override {
    execute_script("COMMIT");
    in_transaction_ = false;
  }
  void rollback() noexcept override {
    PGresult* res = PQexec(conn_, "ROLLBACK");
    PQclear(res);
    in_transaction_ = false;
  }
  [[nodiscard]] bool has_table(const std::string& name) override {
    return !query(
                "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND "
                "tablename = $1",
                {name})
                .empty();
  }

 private:
  // The server as libpq connected to it, without user or password: what a message may name.
  [[nodiscard]] std::string where() const {
    std::string db = conn_ && PQdb(conn_) ? PQdb(conn_) : "";
    std::string host = conn_ && PQhost(conn_) ? PQhost(conn_) : "";
    return "PostgreSQL archive" + (db.empty() ? "" : " '" + db + "'") +
           (host.empty() ? "" : " on " + host);
  }
  [[nodiscard]] std::string message() const {
    std::string m = conn_ ? PQerrorMessage(conn_) : "out of memory";
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    return m;
  }
  void check(PGresult* res, ExecStatusType want) {
    if (res && PQresultStatus(res) == want) return;
    std::string why = res ? PQresultErrorMessage(res) : message();
    PQclear(res);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    throw ArchiveError(where() + ": " + why);
  }
  // The writer lock's statement, sent and waited for in steps of 100 ms so that a stop signal
  // that comes during the wait (archive_stop_requested) cancels it instead of waiting out the limit
  // (a run interrupted before, which records what it measured, waits as any other).
  PGresult* wait_for_lock() {
    const bool stopped_before = archive_stop_requested();
    if (!PQsendQuery(conn_, kWriterLock)) return nullptr;
    while (PQisBusy(conn_)) {
      if (!stopped_before && archive_stop_requested()) {
        if (PGcancel* cancel = PQgetCancel(conn_)) {
          char error[256];
          (void)PQcancel(cancel, error, sizeof error);
          PQfreeCancel(cancel);
        }
        while (PGresult* r = PQgetResult(conn_)) PQclear(r);
        throw ArchiveError(where() + ": interrupted while waiting for the archive's writer lock");
      }
      pollfd fd{PQsocket(conn_), POLLIN, 0};
      if (::poll(&fd, 1, 100) < 0 && errno != EINTR) break;
      if (!PQconsumeInput(conn_)) break;
    }
    PGresult* res = PQgetResult(conn_);
    while (PGresult* more = PQgetResult(conn_)) PQclear(more);
    return res;
  }

  static SqlCell cell(PGresult* res, int r, int c) {
    if (PQgetisnull(res, r, c)) return std::monostate{};
    const char* text = PQgetvalue(res, r, c);
    const std::string_view view(text, static_cast<std::size_t>(PQgetlength(res, r, c)));
    const Oid type = PQftype(res, c);
    if (type == kInt8 || type == kInt4 || type == kInt2) {
      std::int64_t v = 0;
      std::from_chars(view.data(), view.data() + view.size(), v);
      return v;
    }
    if (type == kFloat8 || type == kFloat4) return std::strtod(text, nullptr);
    return std::string(view);
  }

  std::string url_;
  PGconn* conn_ = nullptr;
  bool in_transaction_ = false;
};

}  // namespace

std::unique_ptr<SqlConnection> open_postgresql(const std::string& url, ArchiveAccess access) {
  auto connection = std::make_unique<PostgresConnection>(url);
  connection->prepare(access);
  return connection;
}

}  // namespace storqual::reporting
