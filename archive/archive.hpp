// SPDX-License-Identifier: Apache-2.0
// The acceptance archive (docs/archive.md): every run recorded, append-only, in one SQLite file or
// one PostgreSQL database, each record chained to the one before by its hash, queried by serial,
// model or tag.
//
// Contract: an Archive is one connection, used by one thread; any number of Archives (threads,
// processes, hosts) may record into the same archive at once: record() appends under the
// archive's writer lock, in one transaction (a crash leaves the record whole or absent). storqual
// never updates or deletes a row. Every failure throws ArchiveError; a file that is not an SQLite
// database is never written.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "archive/archive_location.hpp"
#include "archive/record_signature.hpp"
#include "archive/sql_connection.hpp"
#include "model/result.hpp"
#include "reporting/report_names.hpp"

namespace storqual::reporting {

// One report file a record lists, with the SHA-256 of its bytes as written.
struct ArchivedFile {
  std::string kind;  // json | junit | html | ocp-diag
  std::string path;  // absolute
  std::string sha256;
  std::int64_t bytes = 0;
};

struct RecordOutcome {
  std::int64_t seq = 0;       // the record's number in the chain
  bool already = false;       // the same result (by SHA-256) was recorded before: nothing added
  std::string result_sha256;  // of the result JSON as stored
};

// The first break `archive verify` finds, or none.
struct ChainCheck {
  std::int64_t records = 0;
  std::string head_hash;         // the last record's hash (keep it elsewhere to detect a cut tail)
  std::set<std::string> hashes;  // every record's hash (`archive verify --head`)
  std::optional<std::string> problem;  // "record 17 was edited: ...", "record 6 was removed ..."
};

struct HistoryQuery {
  std::optional<std::string> serial;
  std::optional<std::string> model;
  std::vector<ArchiveTag> tags;             // all of them
  std::optional<std::string> since, until;  // ISO 8601 dates or times, compared with start_utc
};

struct HistoryFigure {
  std::string workload;
  std::string name;
  double value = 0;
  std::string unit;
};

struct HistoryRow {
  std::int64_t record = 0;  // the record's number (not printed: it differs between archives)
  std::string start_utc, host, serial, model, firmware, tool_version, suite, verdict;
  std::int64_t exit_code = 0;
  std::string result_sha256;
  std::vector<HistoryFigure> figures;  // each workload's iops and bw
  std::vector<ArchiveTag> tags;
};

// One figure of a re-test against an earlier record of the unit (docs/archive.md, "Drift").
struct DriftFigure {
  std::string workload, name, unit;
  double now = 0, then = 0;
  std::optional<std::pair<double, double>> now_interval, then_interval;  // early-stop intervals
  bool separated = false;  // both intervals known and disjoint: the figure drifted
};

struct DriftAgainst {
  std::int64_t record = 0;
  std::string start_utc, firmware, verdict;
  std::string wear_then;  // percentage_used when that run began ("" when not read)
  std::vector<DriftFigure> figures;
};

struct DriftReport {
  std::string serial, firmware_now, wear_now;  // wear: percentage_used at the end of this run
  std::optional<DriftAgainst> acceptance;      // the unit's first passing record before this one
  std::optional<DriftAgainst> last;            // its latest record before this one, if another
};

// A unit's acceptance record (its first record with the verdict pass), as a re-test is judged
// against it (docs/archive.md, "Drift"): each workload's iops and bw with its early-stop interval.
struct AcceptanceRecord {
  std::int64_t record = 0;
  std::string start_utc, firmware;
  std::string wear;  // percentage_used when that run began ("" when not read)
  struct Figure {
    std::string workload, name, unit;
    double value = 0;
    std::optional<std::pair<double, double>> interval;
  };
  std::vector<Figure> figures;
};

// A record's health as `storqual audit` shows it: its health verdicts and the wear it read.
struct RecordHealth {
  int judged = 0;                   // health verdicts of the run
  std::vector<std::string> failed;  // the messages of those that did not pass
  bool read = false;                // the run read a health log (before or after)
  std::string wear;  // percentage_used at the end of the run (else at its start); "" unread
};

class Archive {
 public:
  // Opens to record (creating an SQLite file, not a missing directory given by name) and
  // migrates; `tool_version` is what schema_version says applied a migration. What is not a
  // storqual archive is refused and left as it is (open_sqlite, check_archive_to_record).
  // `access`: Record (a run's recording, after SQLite's quick_check) or Import (`archive import`).
  [[nodiscard]] static std::unique_ptr<Archive> open(const ArchiveLocation& where,
                                                     std::string_view tool_version = {},
                                                     ArchiveAccess access = ArchiveAccess::Record);
  // Opens an existing archive read-only (verify, history, audit, export, drift): it creates,
  // migrates and marks nothing, and reads an archive on a read-only mount.
  [[nodiscard]] static std::unique_ptr<Archive> open_to_read(const ArchiveLocation& where);

  // Appends a record of `run` whose JSON is `json_text` (stored verbatim, addressed by its
  // SHA-256); a result already recorded is not recorded again (RecordOutcome::already).
  RecordOutcome record(const RunResult& run, const std::string& json_text,
                       const std::vector<ArchivedFile>& files, const std::vector<ArchiveTag>& tags);
  // One result to record: its run, JSON text and report files (not owned).
  struct RecordItem {
    const RunResult* run;
    const std::string* json_text;
    const std::vector<ArchivedFile>* files;
  };
  // record() of each item in order, all in one transaction (`archive import` in chunks: one
  // commit for many records); a failure records none of them.
  std::vector<RecordOutcome> record_batch(const std::vector<RecordItem>& items,
                                          const std::vector<ArchiveTag>& tags);
  // Signs every record this Archive appends from now on (an Ed25519 private key).
  void sign_with(std::shared_ptr<const Ed25519Key> key) { signer_ = std::move(key); }
  // Walks the chain from the first record: the first one edited, inserted or removed; with
  // `public_key`, then the first record not signed by that key or whose signature fails.
  [[nodiscard]] ChainCheck verify(const Ed25519Key* public_key = nullptr);
  // The runs matching `q`, by start time (then result SHA-256): the same answer on every engine.
  [[nodiscard]] std::vector<HistoryRow> history(const HistoryQuery& q);
  // Record `seq` against the unit's (same serial) acceptance record and its last one before it.
  [[nodiscard]] DriftReport drift(std::int64_t seq);
  // The acceptance record of the unit with this serial, if the archive has one.
  [[nodiscard]] std::optional<AcceptanceRecord> acceptance(const std::string& serial);
  // Record `seq`'s health verdicts and health rows (storqual audit).
  [[nodiscard]] RecordHealth record_health(std::int64_t seq);
  // The result JSON stored under `sha256` (full, lower-case hex), if any.
  [[nodiscard]] std::optional<std::string> result_json(const std::string& sha256);
  [[nodiscard]] std::int64_t record_count();
  // The chain's links of records first..last: (seq, result_sha256, content_sha256, prev_hash,
  // record_hash, kind, recorded_utc) each.
  [[nodiscard]] std::vector<SqlRow> chain_segment(std::int64_t first, std::int64_t last);
  // The report files a record lists.
  [[nodiscard]] std::vector<ArchivedFile> report_files(std::int64_t seq);
  [[nodiscard]] const ArchiveLocation& location() const noexcept { return where_; }
  [[nodiscard]] SqlConnection& connection() noexcept { return *db_; }

 private:
  Archive(ArchiveLocation where, std::unique_ptr<SqlConnection> db);
  RecordOutcome append(const RecordItem& item, const std::vector<ArchiveTag>& tags);
  ArchiveLocation where_;
  std::unique_ptr<SqlConnection> db_;
  std::shared_ptr<const Ed25519Key> signer_;
};

// Lower-case hex SHA-256 of `bytes` (OpenSSL's EVP_Digest).
[[nodiscard]] std::string archive_sha256_hex(std::string_view bytes);

// The report files of `reports` that exist, hashed (what a record lists).
[[nodiscard]] std::vector<ArchivedFile> archived_files(const ReportSet& reports);

}  // namespace storqual::reporting
