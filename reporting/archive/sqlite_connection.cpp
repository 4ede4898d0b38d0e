// SPDX-License-Identifier: Apache-2.0
// The archive's SQLite engine (sql_connection.hpp): one file, WAL mode for many writers, a busy
// timeout so that a writer waits for another's short transaction instead of failing.
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "reporting/archive/sql_connection.hpp"

namespace storqual::reporting {
namespace {

// How long a writer waits for the lock another process holds (a record takes milliseconds;
// eight processes appending at once wait for each other, docs/archive.md "Many writers").
constexpr int kBusyTimeoutMs = 60'000;

class SqliteConnection final : public SqlConnection {
 public:
  explicit SqliteConnection(std::string path) : path_(std::move(path)) {
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw ArchiveError(path_ + ": cannot open the SQLite archive: " + why);
    }
  }
  // Apart from the constructor, so that a failure here closes the file (the destructor runs).
  void prepare() {
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    // Reading the header first: a file that is not a database fails here, before anything
    // could write to it.
    query("SELECT count(*) FROM sqlite_master", {});
    set_wal();
    execute_script("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON");
  }
  ~SqliteConnection() override {
    if (in_transaction_) rollback();
    sqlite3_close(db_);
  }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  [[nodiscard]] std::string_view engine() const noexcept override { return "sqlite"; }

  void execute_script(const std::string& sql) override {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string why = message ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      fail(why);
    }
  }

  std::vector<SqlRow> query(const std::string& sql, const SqlRow& params) override {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      fail(sqlite3_errmsg(db_));
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{stmt};
    for (std::size_t i = 0; i < params.size(); ++i) bind(stmt, i + 1, params[i]);
    std::vector<SqlRow> rows;
    for (;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail(sqlite3_errmsg(db_));
      SqlRow row;
      const int n = sqlite3_column_count(stmt);
      for (int c = 0; c < n; ++c) row.push_back(cell(stmt, c));
      rows.push_back(std::move(row));
    }
    return rows;
  }

  void begin_write() override {
    execute_script("BEGIN IMMEDIATE");
    in_transaction_ = true;
  }
  void begin_read() override {
    execute_script("BEGIN");
    in_transaction_ = true;
  }
  void commit() override {
    execute_script("COMMIT");
    in_transaction_ = false;
  }
  void rollback() noexcept override {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    in_transaction_ = false;
  }
  [[nodiscard]] bool has_table(const std::string& name) override {
    return !query("SELECT 1 FROM sqlite_master WHERE type='table' AND name=$1", {name}).empty();
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    std::string what = path_ + ": " + why;
    const int code = sqlite3_extended_errcode(db_);
    if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
      what = path_ + ": not an SQLite database, or a damaged one (" + why +
             "); storqual leaves it as it is";
    throw ArchiveError(what);
  }

  // WAL lets readers and one writer work at once; changing the journal mode needs a moment
  // without other connections, so a busy answer is waited out like any other.
  void set_wal() {
    for (int attempt = 0;; ++attempt) {
      try {
        const auto rows = query("PRAGMA journal_mode=WAL", {});
        if (!rows.empty()) return;
      } catch (const ArchiveError&) {
        if ((sqlite3_errcode(db_) != SQLITE_BUSY && sqlite3_errcode(db_) != SQLITE_LOCKED) ||
            attempt > 600)
          throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }

  void bind(sqlite3_stmt* stmt, std::size_t index, const SqlCell& value) {
    const int i = static_cast<int>(index);
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::monostate>(value)) rc = sqlite3_bind_null(stmt, i);
    if (const auto* v = std::get_if<std::int64_t>(&value)) rc = sqlite3_bind_int64(stmt, i, *v);
    if (const auto* v = std::get_if<double>(&value)) rc = sqlite3_bind_double(stmt, i, *v);
    if (const auto* v = std::get_if<std::string>(&value))
      rc = sqlite3_bind_text(stmt, i, v->data(), static_cast<int>(v->size()), SQLITE_TRANSIENT);
    if (rc != SQLITE_OK) fail(sqlite3_errmsg(db_));
  }

  static SqlCell cell(sqlite3_stmt* stmt, int c) {
    switch (sqlite3_column_type(stmt, c)) {
      case SQLITE_INTEGER:
        return static_cast<std::int64_t>(sqlite3_column_int64(stmt, c));
      case SQLITE_FLOAT:
        return sqlite3_column_double(stmt, c);
      case SQLITE_NULL:
        return std::monostate{};
      default: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        return std::string(text ? text : "",
                           static_cast<std::size_t>(sqlite3_column_bytes(stmt, c)));
      }
    }
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  bool in_transaction_ = false;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const std::string& path) {
  auto connection = std::make_unique<SqliteConnection>(path);
  connection->prepare();
  return connection;
}

}  // namespace storqual::reporting
