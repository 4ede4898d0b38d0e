// SPDX-License-Identifier: Apache-2.0
// The archive's tables, views and migrations (archive_schema.hpp, docs/archive.md).
#include "archive/archive_schema.hpp"

#include <array>
#include <chrono>
#include <ctime>
#include <map>

namespace storqual::reporting {
namespace {

using enum ColumnType;

const std::vector<ArchiveTable>& tables() {
  static const std::vector<ArchiveTable> t = {
      {"run",
       {{"host", Text},
        {"kernel", Text},
        {"tool_version", Text},
        {"command_line", Text},
        {"start_utc", Text},
        {"end_utc", Text},
        {"wall_time_s", Double},
        {"suite", Text},
        {"suite_sha256", Text},
        {"sheet", Text},
        {"sheet_path", Text},
        {"sheet_sha256", Text},
        {"firmware", Text},
        {"verdict", Text},
        {"exit_code", Integer},
        {"measure_only", Integer},
        {"strict", Integer}}},
      {"device",
       {{"serial", Text},
        {"model", Text},
        {"wwn", Text},
        {"transport", Text},
        {"firmware", Text},
        {"vendor", Text},
        {"name", Text},
        {"path", Text}}},
      {"verdict",
       {{"kind", Text},
        {"workloads", Text},
        {"metric", Text},
        {"status", Text},
        {"measured", Double},
        {"claimed", Double},
        {"unit", Text},
        {"tolerance_pct", Double},
        {"diff_pct", Double},
        {"message", Text}}},
      {"figure",
       {{"workload", Text},
        {"name", Text},
        {"value", Double},
        {"unit", Text},
        {"interval_low", Double},
        {"interval_high", Double},
        {"samples", Integer}}},
      {"deviation", {{"kind", Text}, {"text", Text}, {"workloads", Text}}},
      {"health", {{"phase", Text}, {"field", Text}, {"value", Text}, {"source", Text}}},
      {"report_file", {{"kind", Text}, {"path", Text}, {"sha256", Text}, {"bytes", Integer}}},
      {"tag", {{"key", Text}, {"value", Text}}},
  };
  return t;
}

std::string_view sql_type(ColumnType t) {
  switch (t) {
    case Integer:
      return "BIGINT";
    case Double:
      return "DOUBLE PRECISION";
    case Text:
      break;
  }
  return "TEXT";
}

// Version 1: the records, the results they hold and their rows for queries.
std::string schema_v1() {
  std::string sql =
      "CREATE TABLE schema_version (version BIGINT PRIMARY KEY, applied_utc TEXT NOT NULL, "
      "tool_version TEXT NOT NULL);\n"
      "CREATE TABLE result_json (sha256 TEXT PRIMARY KEY, content TEXT NOT NULL);\n"
      "CREATE TABLE record (seq BIGINT PRIMARY KEY, kind TEXT NOT NULL, result_sha256 TEXT NOT "
      "NULL, recorded_utc TEXT NOT NULL, content_sha256 TEXT NOT NULL, prev_hash TEXT NOT NULL, "
      "record_hash TEXT NOT NULL);\n"
      "CREATE INDEX record_result ON record (result_sha256);\n";
  for (const auto& t : tables()) {
    sql +=
        "CREATE TABLE " + std::string(t.name) + " (record_seq BIGINT NOT NULL, idx BIGINT NOT NULL";
    for (const auto& c : t.columns)
      sql += ", " + std::string(c.name) + " " + std::string(sql_type(c.type));
    sql += ", PRIMARY KEY (record_seq, idx));\n";
  }
  sql +=
      "CREATE INDEX device_serial ON device (serial);\n"
      "CREATE INDEX device_model ON device (model);\n"
      "CREATE INDEX tag_key_value ON tag (key, value);\n"
      "CREATE INDEX run_start ON run (start_utc);\n";
  return sql;
}

// Version 2: the read-only views for dashboards (a Grafana SQLite or PostgreSQL data source reads
// them as they are): joins, so that PostgreSQL does not make them updatable either.
constexpr const char* kSchemaV2 =
    "CREATE VIEW v_runs AS SELECT r.seq AS record, r.result_sha256, r.recorded_utc, u.start_utc, "
    "u.end_utc, u.host, u.tool_version, d.serial, d.model, d.wwn, d.transport, u.firmware, "
    "u.suite, u.suite_sha256, u.sheet, u.sheet_sha256, u.verdict, u.exit_code "
    "FROM record r JOIN run u ON u.record_seq = r.seq JOIN device d ON d.record_seq = r.seq;\n"
    "CREATE VIEW v_figures AS SELECT r.seq AS record, u.start_utc, d.serial, d.model, "
    "u.firmware, f.workload, f.name, f.value, f.unit, f.interval_low, f.interval_high, f.samples "
    "FROM record r JOIN run u ON u.record_seq = r.seq JOIN device d ON d.record_seq = r.seq "
    "JOIN figure f ON f.record_seq = r.seq;\n"
    "CREATE VIEW v_verdicts AS SELECT r.seq AS record, u.start_utc, d.serial, d.model, v.kind, "
    "v.workloads, v.metric, v.status, v.measured, v.claimed, v.unit, v.diff_pct "
    "FROM record r JOIN run u ON u.record_seq = r.seq JOIN device d ON d.record_seq = r.seq "
    "JOIN verdict v ON v.record_seq = r.seq;\n"
    "CREATE VIEW v_tags AS SELECT r.seq AS record, d.serial, d.model, t.key, t.value "
    "FROM record r JOIN device d ON d.record_seq = r.seq JOIN tag t ON t.record_seq = r.seq;\n";

// Version 3: Ed25519 signatures of records (record_signature.hpp), beside the chain: a signature
// is over a record's record_hash, not part of its content.
constexpr const char* kSchemaV3 =
    "CREATE TABLE record_signature (record_seq BIGINT PRIMARY KEY, key_sha256 TEXT NOT NULL, "
    "signature TEXT NOT NULL);\n";

std::string_view strict_type(ColumnType t) {
  switch (t) {
    case Integer:
      return "INTEGER";
    case Double:
      return "REAL";
    case Text:
      break;
  }
  return "TEXT";
}

// The tables of versions 1 and 3 as SQLite STRICT tables (a value of another type than its
// column's is refused, not stored).
std::vector<std::pair<std::string, std::string>> strict_tables() {
  std::vector<std::pair<std::string, std::string>> out = {
      {"schema_version",
       "version INTEGER PRIMARY KEY, applied_utc TEXT NOT NULL, tool_version TEXT NOT NULL"},
      {"result_json", "sha256 TEXT PRIMARY KEY, content TEXT NOT NULL"},
      {"record",
       "seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, result_sha256 TEXT NOT NULL, recorded_utc "
       "TEXT NOT NULL, content_sha256 TEXT NOT NULL, prev_hash TEXT NOT NULL, record_hash TEXT NOT "
       "NULL"},
      {"record_signature",
       "record_seq INTEGER PRIMARY KEY, key_sha256 TEXT NOT NULL, signature TEXT NOT NULL"}};
  for (const auto& t : tables()) {
    std::string cols = "record_seq INTEGER NOT NULL, idx INTEGER NOT NULL";
    for (const auto& c : t.columns)
      cols += ", " + std::string(c.name) + " " + std::string(strict_type(c.type));
    out.emplace_back(std::string(t.name), cols + ", PRIMARY KEY (record_seq, idx)");
  }
  return out;
}

constexpr const char* kIndexes =
    "CREATE INDEX record_result ON record (result_sha256);\n"
    "CREATE INDEX device_serial ON device (serial);\n"
    "CREATE INDEX device_model ON device (model);\n"
    "CREATE INDEX tag_key_value ON tag (key, value);\n"
    "CREATE INDEX run_start ON run (start_utc);\n";

// Version 4. SQLite: every table rebuilt as a STRICT table (the rows copied as they are; a value
// that its column's type cannot hold fails the migration, and so the record, instead of staying
// unseen), and the file marked as a storqual archive (application_id, user_version).
// PostgreSQL's columns hold their types already: the database is marked by a comment.
std::string schema_v4(std::string_view engine) {
  if (engine != "sqlite") return "COMMENT ON TABLE schema_version IS 'storqual acceptance archive'";
  std::string sql =
      "DROP VIEW v_runs; DROP VIEW v_figures; DROP VIEW v_verdicts; DROP VIEW v_tags;\n";
  for (const auto& [name, columns] : strict_tables())
    sql += "CREATE TABLE " + name + "__strict (" + columns + ") STRICT;\nINSERT INTO " + name +
           "__strict SELECT * FROM " + name + ";\nDROP TABLE " + name + ";\nALTER TABLE " + name +
           "__strict RENAME TO " + name + ";\n";
  sql += kIndexes;
  sql += kSchemaV2;
  sql += "PRAGMA application_id = " + std::to_string(kArchiveApplicationId) +
         ";\nPRAGMA user_version = 4;\n";
  return sql;
}

struct Migration {
  int to_version;
  std::string (*sql)(std::string_view engine);
};

constexpr std::array<Migration, 4> kMigrations{{
    {1, [](std::string_view) { return schema_v1(); }},
    {2, [](std::string_view) { return std::string(kSchemaV2); }},
    {3, [](std::string_view) { return std::string(kSchemaV3); }},
    {4, schema_v4},
}};

std::string utc_now_text() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// storqual's views as (name, the CREATE VIEW statement as version 2 wrote it).
std::vector<std::pair<std::string, std::string>> views() {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string_view all = kSchemaV2;
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t end = all.find(";\n", at);
    const std::string_view statement = all.substr(at, end - at);
    const std::size_t name = std::string_view("CREATE VIEW ").size();
    out.emplace_back(std::string(statement.substr(name, statement.find(' ', name) - name)),
                     std::string(statement));
    at = end + 2;
  }
  return out;
}

std::string text_cell(const SqlCell& c) {
  const auto* s = std::get_if<std::string>(&c);
  return s ? *s : std::string();
}

// SQLite keeps a view's statement as it was given: each of storqual's must be as written.
std::optional<std::string> sqlite_objects_problem(SqlConnection& db) {
  std::map<std::string, std::string> found;
  for (const auto& r : db.query("SELECT type, name, sql FROM sqlite_master WHERE type IN "
                                "('view', 'trigger') ORDER BY name",
                                {})) {
    if (text_cell(r[0]) == "trigger")
      return "the archive holds a trigger storqual did not make (" + text_cell(r[1]) + ")";
    found[text_cell(r[1])] = text_cell(r[2]);
  }
  for (const auto& [name, sql] : views()) {
    const auto f = found.find(name);
    if (f == found.end()) return "the view " + name + " is gone";
    if (f->second != sql) return "the view " + name + " is not storqual's (it was replaced)";
  }
  return std::nullopt;
}

// PostgreSQL keeps a view's definition parsed: each of storqual's is compared with the same
// statement made a temporary view (in a transaction rolled back) as the server prints both.
std::optional<std::string> postgresql_objects_problem(SqlConnection& db) {
  const auto triggers = db.query(
      "SELECT t.tgname FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = "
      "t.tgrelid WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace "
      "UNION ALL SELECT rulename FROM pg_catalog.pg_rules WHERE schemaname = current_schema()",
      {});
  if (!triggers.empty())
    return "the archive holds a trigger or rule storqual did not make (" +
           text_cell(triggers[0][0]) + ")";
  std::optional<std::string> problem;
  db.execute_script("BEGIN READ WRITE");
  try {
    for (const auto& [name, sql] : views()) {
      const auto have = db.query(
          "SELECT definition FROM pg_catalog.pg_views WHERE schemaname = current_schema() AND "
          "viewname = $1",
          {name});
      db.execute_script("CREATE TEMPORARY VIEW storqual_expected_" +
                        sql.substr(std::string_view("CREATE VIEW ").size()));
      const auto want = db.query("SELECT pg_catalog.pg_get_viewdef($1::regclass)",
                                 {"pg_temp.storqual_expected_" + name});
      if (have.empty())
        problem = "the view " + name + " is gone";
      else if (text_cell(have[0][0]) != text_cell(want.at(0).at(0)))
        problem = "the view " + name + " is not storqual's (it was replaced)";
      if (problem) break;
    }
  } catch (...) {
    db.execute_script("ROLLBACK");
    throw;
  }
  db.execute_script("ROLLBACK");
  return problem;
}

}  // namespace

std::optional<std::string> archive_objects_problem(SqlConnection& db) {
  if (archive_schema_version(db) < 2) return std::nullopt;
  return db.engine() == "sqlite" ? sqlite_objects_problem(db) : postgresql_objects_problem(db);
}

void check_archive_to_read(SqlConnection& db, const std::string& name) {
  if (!db.has_table("schema_version") || !db.has_table("record"))
    throw ArchiveError(name +
                       ": holds no storqual archive (no schema_version and record tables); "
                       "storqual leaves it as it is");
  if (const int have = archive_schema_version(db); have > kArchiveSchemaVersion)
    throw ArchiveError("the archive's schema is version " + std::to_string(have) +
                       ", newer than this storqual's (" + std::to_string(kArchiveSchemaVersion) +
                       ")");
}

// One statement, so one snapshot: asked as two (is schema_version there? then how many tables?),
// a writer that made the archive between them made its tables look like another application's.
void check_archive_to_record(SqlConnection& db, const std::string& name) {
  if (db.engine() != "postgresql") return;
  const auto tables = db.query(
      "SELECT count(*) FROM pg_catalog.pg_class WHERE relnamespace = "
      "current_schema()::regnamespace AND relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT EXISTS "
      "(SELECT 1 FROM pg_catalog.pg_class WHERE relnamespace = current_schema()::regnamespace "
      "AND relname = 'schema_version')",
      {});
  const auto* n = tables.empty() ? nullptr : std::get_if<std::int64_t>(&tables[0][0]);
  if (n && *n > 0)
    throw ArchiveError(name + ": the database holds " + std::to_string(*n) +
                       " tables or views of another application and no storqual archive; "
                       "storqual leaves it as it is (give an empty database)");
}

std::span<const ArchiveTable> archive_tables() {
  return tables();
}

int archive_schema_version(SqlConnection& db) {
  if (!db.has_table("schema_version")) return 0;
  const auto rows = db.query("SELECT max(version) FROM schema_version", {});
  if (rows.empty()) return 0;
  if (const auto* v = std::get_if<std::int64_t>(&rows[0][0])) return static_cast<int>(*v);
  return 0;
}

void migrate_archive(SqlConnection& db, std::string_view tool_version) {
  if (archive_schema_version(db) == kArchiveSchemaVersion) return;  // the common case, no lock
  for (const auto& m : kMigrations) {
    db.begin_write();
    try {
      const int have = archive_schema_version(db);
      if (have > kArchiveSchemaVersion)
        throw ArchiveError("the archive's schema is version " + std::to_string(have) +
                           ", newer than this storqual's (" +
                           std::to_string(kArchiveSchemaVersion) + ")");
      if (have < m.to_version) {
        db.execute_script(m.sql(db.engine()));
        db.query(
            "INSERT INTO schema_version (version, applied_utc, tool_version) VALUES ($1, $2, $3)",
            {std::int64_t{m.to_version}, utc_now_text(), std::string(tool_version)});
      }
      db.commit();
    } catch (...) {
      db.rollback();
      throw;
    }
  }
  if (const int have = archive_schema_version(db); have > kArchiveSchemaVersion)
    throw ArchiveError("the archive's schema is version " + std::to_string(have) +
                       ", newer than this storqual's (" + std::to_string(kArchiveSchemaVersion) +
                       ")");
}

}  // namespace storqual::reporting
