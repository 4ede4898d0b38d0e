// SPDX-License-Identifier: Apache-2.0
// The SQL the archive speaks, whichever engine holds it (docs/archive.md, "Engines"): one
// connection to SQLite (libsqlite3) or PostgreSQL (libpq), the same statements on both ($1, $2 ..
// parameters, BIGINT, DOUBLE PRECISION and TEXT columns), each cell a null, an integer, a double
// or a text.
//
// Contract: a connection is used by one thread. Every failure throws ArchiveError naming the
// archive and what failed; nothing is retried here except what busy handling waits out (SQLite's
// busy_timeout). begin_write() takes the archive's one writer lock (SQLite BEGIN IMMEDIATE,
// PostgreSQL a transaction-scoped advisory lock) so that records are appended one after another
// by any number of processes; a connection destroyed inside a transaction rolls it back.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/errors.hpp"

namespace storqual::reporting {

// The archive could not be opened, read or written (a corrupt file, a lock held too long, a
// server gone). A run that meets it still writes its reports and exits with its verdict.
class ArchiveError : public Error {
 public:
  explicit ArchiveError(const std::string& what) : Error(what, kExitRuntime) {}
};

using SqlCell = std::variant<std::monostate, std::int64_t, double, std::string>;
using SqlRow = std::vector<SqlCell>;

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // "sqlite" or "postgresql".
  [[nodiscard]] virtual std::string_view engine() const noexcept = 0;
  // Statements without a result (schema, BEGIN ...), possibly several separated by ';'.
  virtual void execute_script(const std::string& sql) = 0;
  // One statement with $1.. parameters; its rows, each cell typed as the engine gave it (an
  // integer column an integer, a double column a double, text a string, NULL monostate).
  virtual std::vector<SqlRow> query(const std::string& sql, const SqlRow& params = {}) = 0;
  // The writer lock and its transaction.
  virtual void begin_write() = 0;
  virtual void begin_read() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // Whether the table exists (schema_version before the first migration).
  [[nodiscard]] virtual bool has_table(const std::string& name) = 0;
};

// The flag a stop signal sets (runner/qualification/signals.hpp): a writer waiting for the
// archive's lock (SQLite's busy wait, PostgreSQL's advisory lock) watches it and gives up within a
// tenth of a second once it is set during the wait (ArchiveError "interrupted while waiting ..."),
// so that SIGINT or SIGTERM ends the run with its reports written. A run interrupted before it
// records (its result says so) waits as any other, 60 s at most. Null (the default): only the
// 60 s bound.
void set_archive_stop_flag(const std::atomic<bool>* stop) noexcept;
[[nodiscard]] bool archive_stop_requested() noexcept;

// How long a writer waits for the writer lock another writer holds (SQLite's busy wait,
// PostgreSQL's lock_timeout), in seconds: 60, or STORQUAL_ARCHIVE_LOCK_WAIT when it is set and
// not empty (a whole number of seconds, 1 to 3600; docs/archive.md "Many writers"). Throws
// UsageError naming the variable for any other value.
[[nodiscard]] int archive_lock_wait_s();

// What a command does with the archive: verify, history, audit and export only read it (a read-only
// connection that never creates, migrates or marks anything); a command that records writes, and
// a run's recording (one record) first runs SQLite's quick_check over the file; `archive import`
// (Import: many records at once, where a whole-file check each time would cost more than the
// import) relies on SQLite refusing the damaged pages it reads.
enum class ArchiveAccess { Read, Record, Import };

// The mark of a storqual archive in an SQLite file's header (PRAGMA application_id, "SQRA";
// user_version is its schema version), docs/archive.md "Where".
inline constexpr std::int64_t kArchiveApplicationId = 0x53515241;

// The engines. open_sqlite opens an existing archive file only: the path is looked at before
// SQLite sees it, and a block or character device, a directory, a FIFO or socket, an empty file,
// a file that is not an SQLite database and an SQLite database that is not a storqual archive
// (neither the mark nor, for an archive of before the mark, storqual's tables) are refused
// (ArchiveError naming the path) and left byte for byte as they were. Record: read-write, WAL,
// busy_timeout; Read: SQLITE_OPEN_READONLY (immutable on a read-only mount).
[[nodiscard]] std::unique_ptr<SqlConnection> open_sqlite(const std::string& path,
                                                         ArchiveAccess access);
// A new database file at `path`, which must not exist (the archive's first migrations run in it
// before it is moved to its name, Archive::open).
[[nodiscard]] std::unique_ptr<SqlConnection> create_sqlite(const std::string& path);
// `url`: a libpq connection URI (postgresql://...) or key=value string; credentials only through
// libpq's environment, service and password files (checked by the caller, archive_location.hpp).
// Read: every transaction is read-only (default_transaction_read_only).
[[nodiscard]] std::unique_ptr<SqlConnection> open_postgresql(const std::string& url,
                                                             ArchiveAccess access);

}  // namespace storqual::reporting
