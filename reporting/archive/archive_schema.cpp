// SPDX-License-Identifier: Apache-2.0
// The archive's tables, views and migrations (archive_schema.hpp, docs/archive.md).
#include "reporting/archive/archive_schema.hpp"

#include <array>
#include <chrono>
#include <ctime>

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

struct Migration {
  int to_version;
  std::string (*sql)();
};

constexpr std::array<Migration, 3> kMigrations{{
    {1, schema_v1},
    {2, [] { return std::string(kSchemaV2); }},
    {3, [] { return std::string(kSchemaV3); }},
}};

std::string utc_now_text() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

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
        db.execute_script(m.sql());
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
