// SPDX-License-Identifier: Apache-2.0
// The archive's schema (docs/archive.md, "Schema"): its tables and their columns in one table,
// read by the migrations (which create them), by the writer (which inserts a record's rows) and by
// `archive verify` (which reads them back to hash them), and the list of migrations that brings an
// archive of any earlier version to this one.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "archive/sql_connection.hpp"

namespace storqual::reporting {

enum class ColumnType { Integer, Double, Text };

struct ArchiveColumn {
  std::string_view name;
  ColumnType type;
};

// A table of a record's rows: every one has record_seq (the record) and idx (the row's place in
// it) first, then `columns`.
struct ArchiveTable {
  std::string_view name;
  std::vector<ArchiveColumn> columns;
};

// The record tables in their canonical order (the order of a record's hashed content).
[[nodiscard]] std::span<const ArchiveTable> archive_tables();

// The version this build writes; an archive of a newer version is refused (ArchiveError), an
// older one migrated, each step in its own transaction under the writer lock.
inline constexpr int kArchiveSchemaVersion = 4;

// Brings the archive to kArchiveSchemaVersion (creating it when empty). Safe with any number of
// processes doing it at once.
void migrate_archive(SqlConnection& db, std::string_view tool_version);

// An archive a command only reads: storqual's tables there, of a version this storqual knows.
// `name` is the archive as messages name it. Throws ArchiveError.
void check_archive_to_read(SqlConnection& db, const std::string& name);
// An archive to record into, before its migrations: on PostgreSQL, a database that holds another
// application's tables and no storqual archive is refused (an SQLite file is checked as it is
// opened, open_sqlite). Throws ArchiveError.
void check_archive_to_record(SqlConnection& db, const std::string& name);

// What `archive verify` checks beside the chain: storqual's views as storqual wrote them, and no
// trigger (nor, on PostgreSQL, rule) on its tables. The first thing amiss, or none.
[[nodiscard]] std::optional<std::string> archive_objects_problem(SqlConnection& db);

// The version an archive holds (0: none yet).
[[nodiscard]] int archive_schema_version(SqlConnection& db);

}  // namespace storqual::reporting
