// SPDX-License-Identifier: Apache-2.0
// The acceptance archive: recording, the chain check and the history (archive.hpp).
#include "archive/archive.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "archive/archive_rows.hpp"
#include "archive/archive_schema.hpp"

namespace storqual::reporting {
namespace fs = std::filesystem;
namespace {

std::string text_of(const SqlCell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&c)) return std::to_string(*d);
  return {};
}
std::int64_t int_of(const SqlCell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
  if (const auto* d = std::get_if<double>(&c)) return static_cast<std::int64_t>(*d);
  if (const auto* s = std::get_if<std::string>(&c)) return std::strtoll(s->c_str(), nullptr, 10);
  return 0;
}
double double_of(const SqlCell& c) {
  if (const auto* d = std::get_if<double>(&c)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
  if (const auto* s = std::get_if<std::string>(&c)) return std::strtod(s->c_str(), nullptr);
  return 0;
}

std::string utc_now_micro() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()) %
                  std::chrono::seconds(1);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[64];
  std::snprintf(out, sizeof out, "%s.%06lldZ", buf, static_cast<long long>(us.count()));
  return out;
}

std::string insert_sql(const ArchiveTable& t) {
  std::string cols = "record_seq, idx", params = "$1, $2";
  int n = 2;
  for (const auto& c : t.columns) {
    cols += ", " + std::string(c.name);
    params += ", $" + std::to_string(++n);
  }
  return "INSERT INTO " + std::string(t.name) + " (" + cols + ") VALUES (" + params + ")";
}

std::string select_sql(const ArchiveTable& t) {
  std::string cols = "record_seq, idx";
  for (const auto& c : t.columns) cols += ", " + std::string(c.name);
  return "SELECT " + cols + " FROM " + std::string(t.name) + " ORDER BY record_seq, idx";
}

struct ChainRecord {
  RecordHead head;
  std::string content_sha256, prev_hash, record_hash;
};

// The first break of the chain at records[k], or none (docs/archive.md, "The chain").
std::optional<std::string> check_record(const std::vector<ChainRecord>& records, std::size_t k,
                                        const std::map<std::int64_t, RecordRows>& rows,
                                        const std::map<std::string, std::string>& blob_sha) {
  const ChainRecord& r = records[k];
  const std::string seq = std::to_string(r.head.seq);
  const std::string expected_prev = k ? records[k - 1].record_hash : std::string(kGenesisHash);
  const std::int64_t expected_seq = k ? records[k - 1].head.seq + 1 : 1;
  // The next record links to the one before and this one to the next: the two were swapped.
  if (k + 1 < records.size() && r.prev_hash != expected_prev &&
      records[k + 1].prev_hash == expected_prev && r.prev_hash == records[k + 1].record_hash)
    return "records " + seq + " and " + std::to_string(records[k + 1].head.seq) +
           " were reordered: each holds the other's place in the chain";
  // This one links to a later record: the records were moved.
  for (std::size_t j = k + 1; j < records.size() && r.prev_hash != expected_prev; ++j)
    if (records[j].record_hash == r.prev_hash)
      return "record " + seq + " was reordered: it follows record " +
             std::to_string(records[j].head.seq) + " in the chain, which comes after it";
  // The next record links over this one: this one was put in between.
  if (k + 1 < records.size() && records[k + 1].prev_hash == expected_prev &&
      r.record_hash != expected_prev)
    return "record " + seq + " was inserted: record " + std::to_string(records[k + 1].head.seq) +
           " follows " + (k ? "record " + std::to_string(records[k - 1].head.seq) : "the start") +
           " in the chain";
  if (r.head.seq != expected_seq) {
    const std::int64_t last = r.head.seq - 1;
    return "record" + std::string(last > expected_seq ? "s " : " ") + std::to_string(expected_seq) +
           (last > expected_seq ? ".." + std::to_string(last) + " were" : " was") +
           " removed: record " + seq + " follows " +
           (k ? "record " + std::to_string(records[k - 1].head.seq) : "the start");
  }
  if (r.prev_hash != expected_prev)
    return "record " + seq + " does not follow record " + std::to_string(expected_seq - 1) +
           " in the chain (the previous hash it holds is not that record's): a record between "
           "them was removed, or record " +
           std::to_string(expected_seq - 1) + " was edited and rehashed";
  static const RecordRows none;
  const auto found = rows.find(r.head.seq);
  const std::string content = canonical_record(r.head, found == rows.end() ? none : found->second);
  if (archive_sha256_hex(content) != r.content_sha256 ||
      chain_hash(r.prev_hash, r.content_sha256) != r.record_hash)
    return "record " + seq + " was edited: its rows no longer match its hash";
  const auto blob = blob_sha.find(r.head.result_sha256);
  if (blob == blob_sha.end()) return "record " + seq + " was edited: its result JSON is gone";
  if (blob->second != r.head.result_sha256)
    return "record " + seq +
           " was edited: its result JSON no longer has the SHA-256 it is filed under";
  return std::nullopt;
}

// Rows already there for the record about to be appended would become part of it: refused.
void refuse_planted_rows(SqlConnection& db, std::int64_t seq) {
  std::string sql = "SELECT 1 FROM record_signature WHERE record_seq = $1";
  for (const auto& t : archive_tables())
    sql += " UNION ALL SELECT 1 FROM " + std::string(t.name) + " WHERE record_seq = $1";
  if (!db.query(sql + " LIMIT 1", {seq}).empty())
    throw ArchiveError("the archive holds rows of record " + std::to_string(seq) +
                       " before it was recorded (planted, or left by a removed record): see "
                       "storqual archive verify; nothing recorded");
}

}  // namespace

std::string archive_sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

std::vector<ArchivedFile> archived_files(const ReportSet& reports) {
  std::vector<ArchivedFile> out;
  for (const auto& [kind, path] : {std::pair{"json", &reports.json},
                                   {"junit", &reports.junit},
                                   {"html", &reports.html},
                                   {"ocp-diag", &reports.ocp_diag}}) {
    if (path->empty()) continue;
    std::ifstream in(*path, std::ios::binary);
    if (!in) continue;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    std::error_code ec;
    const fs::path absolute = fs::absolute(*path, ec);
    out.push_back({kind, ec ? *path : absolute.lexically_normal().string(),
                   archive_sha256_hex(bytes.str()), static_cast<std::int64_t>(bytes.str().size())});
  }
  return out;
}

Archive::Archive(ArchiveLocation where, std::unique_ptr<SqlConnection> db)
    : where_(std::move(where)), db_(std::move(db)) {}

namespace {

// A new SQLite archive: made and migrated under a temporary name beside it, then moved to its name
// unless another process made one there first (then that one is used). So an archive file exists
// only as a whole, marked archive, and an empty file is never one.
void create_sqlite_archive(const std::string& path, std::string_view tool_version) {
  char suffix[48];
  std::snprintf(
      suffix, sizeof suffix, ".new-%d-%llx", static_cast<int>(::getpid()),
      static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count()));
  const std::string temporary = path + suffix;
  auto remove_temporary = [&] {
    std::error_code ec;
    fs::remove(temporary, ec);
    fs::remove(temporary + "-journal", ec);
  };
  try {
    auto db = create_sqlite(temporary);
    migrate_archive(*db, tool_version);
  } catch (...) {
    remove_temporary();
    throw;
  }
  if (::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0) {
    const int e = errno;
    remove_temporary();
    if (e != EEXIST) throw ArchiveError(path + ": cannot make the archive: " + std::strerror(e));
  }
}

std::unique_ptr<SqlConnection> open_sqlite_archive(const ArchiveLocation& where,
                                                   ArchiveAccess access,
                                                   std::string_view tool_version) {
  const fs::path dir = fs::path(where.target).parent_path();
  std::error_code ec;
  if (!dir.empty() && !fs::is_directory(dir, ec)) {
    if (!where.is_default || access == ArchiveAccess::Read)
      throw ArchiveError(where.target + ": its directory " + dir.string() + " does not exist");
    fs::create_directories(dir, ec);
    if (ec)
      throw ArchiveError(where.target + ": cannot make " + dir.string() + ": " + ec.message());
  }
  struct stat st {};
  if (access != ArchiveAccess::Read && ::lstat(where.target.c_str(), &st) != 0 && errno == ENOENT)
    create_sqlite_archive(where.target, tool_version);
  return open_sqlite(where.target, access);
}

}  // namespace

std::unique_ptr<Archive> Archive::open(const ArchiveLocation& where, std::string_view tool_version,
                                       ArchiveAccess access) {
  if (where.kind == ArchiveLocation::Kind::Off) throw ArchiveError("the archive is off");
  if (access == ArchiveAccess::Read)
    throw ArchiveError("Archive::open records: open_to_read reads");
  const std::string_view version = tool_version.empty() ? "storqual" : tool_version;
  std::unique_ptr<SqlConnection> db = where.kind == ArchiveLocation::Kind::Postgresql
                                          ? open_postgresql(where.target, access)
                                          : open_sqlite_archive(where, access, version);
  check_archive_to_record(*db, where.display());
  migrate_archive(*db, version);
  return std::unique_ptr<Archive>(new Archive(where, std::move(db)));
}

std::unique_ptr<Archive> Archive::open_to_read(const ArchiveLocation& where) {
  if (where.kind == ArchiveLocation::Kind::Off) throw ArchiveError("the archive is off");
  std::unique_ptr<SqlConnection> db = where.kind == ArchiveLocation::Kind::Postgresql
                                          ? open_postgresql(where.target, ArchiveAccess::Read)
                                          : open_sqlite_archive(where, ArchiveAccess::Read, {});
  check_archive_to_read(*db, where.display());
  return std::unique_ptr<Archive>(new Archive(where, std::move(db)));
}

RecordOutcome Archive::record(const RunResult& run, const std::string& json_text,
                              const std::vector<ArchivedFile>& files,
                              const std::vector<ArchiveTag>& tags) {
  return record_batch({{&run, &json_text, &files}}, tags).front();
}

std::vector<RecordOutcome> Archive::record_batch(const std::vector<RecordItem>& items,
                                                 const std::vector<ArchiveTag>& tags) {
  std::vector<RecordOutcome> outs;
  db_->begin_write();
  try {
    for (const auto& item : items) outs.push_back(append(item, tags));
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  return outs;
}

// One record appended inside the caller's write transaction.
RecordOutcome Archive::append(const RecordItem& item, const std::vector<ArchiveTag>& tags) {
  RecordOutcome out;
  out.result_sha256 = archive_sha256_hex(*item.json_text);
  const RecordRows rows = derive_record_rows(*item.run, *item.files, tags);
  const auto existing = db_->query(
      "SELECT seq FROM record WHERE result_sha256 = $1 ORDER BY seq LIMIT 1", {out.result_sha256});
  if (!existing.empty()) return {int_of(existing[0][0]), true, out.result_sha256};
  const auto last = db_->query("SELECT seq, record_hash FROM record ORDER BY seq DESC LIMIT 1", {});
  RecordHead head{last.empty() ? 1 : int_of(last[0][0]) + 1, "run", out.result_sha256,
                  utc_now_micro()};
  refuse_planted_rows(*db_, head.seq);
  const std::string prev = last.empty() ? std::string(kGenesisHash) : text_of(last[0][1]);
  const std::string content_sha = archive_sha256_hex(canonical_record(head, rows));
  db_->query("INSERT INTO result_json (sha256, content) VALUES ($1, $2) ON CONFLICT DO NOTHING",
             {out.result_sha256, *item.json_text});
  const std::string record_hash = chain_hash(prev, content_sha);
  db_->query(
      "INSERT INTO record (seq, kind, result_sha256, recorded_utc, content_sha256, "
      "prev_hash, record_hash) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      {head.seq, head.kind, head.result_sha256, head.recorded_utc, content_sha, prev, record_hash});
  if (signer_)
    db_->query(
        "INSERT INTO record_signature (record_seq, key_sha256, signature) VALUES ($1, $2, $3)",
        {head.seq, signer_->key_id(), signer_->sign_hex(record_signature_message(record_hash))});
  for (const auto& t : archive_tables()) {
    const auto found = rows.find(t.name);
    if (found == rows.end()) continue;
    const std::string sql = insert_sql(t);
    for (const auto& row : found->second) {
      SqlRow params{head.seq};
      params.insert(params.end(), row.begin(), row.end());
      db_->query(sql, params);
    }
  }
  out.seq = head.seq;
  return out;
}

namespace {

// Everything verify reads, in one read transaction.
struct ChainContents {
  std::vector<ChainRecord> records;
  std::map<std::int64_t, RecordRows> rows;
  std::map<std::string, std::string> blob_sha;  // result_json: filed-under SHA-256 -> actual
  std::map<std::int64_t, std::pair<std::string, std::string>> signatures;
  std::optional<std::string> problem;  // a value of another type than its column's
};

// A cell as a message shows it (a double in its shortest spelling: record 6.5).
std::string shown(const SqlCell& c) {
  if (const auto* d = std::get_if<double>(&c)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", *d);
    return buf;
  }
  return text_of(c);
}

bool all_text(const SqlRow& r, std::size_t from) {
  for (std::size_t i = from; i < r.size(); ++i)
    if (!std::holds_alternative<std::string>(r[i])) return false;
  return true;
}

// The record table, each value of its column's type (seq 6.5 is not record 6).
void read_records(SqlConnection& db, ChainContents& c) {
  for (const auto& r : db.query("SELECT seq, kind, result_sha256, recorded_utc, content_sha256, "
                                "prev_hash, record_hash FROM record ORDER BY seq",
                                {})) {
    if ((!std::holds_alternative<std::int64_t>(r[0]) || !all_text(r, 1)) && !c.problem)
      c.problem = "record " + shown(r[0]) +
                  " was edited: its record row holds a value of another type than its column's";
    c.records.push_back({{int_of(r[0]), text_of(r[1]), text_of(r[2]), text_of(r[3])},
                         text_of(r[4]),
                         text_of(r[5]),
                         text_of(r[6])});
  }
}

void read_contents(SqlConnection& db, ChainContents& c) {
  read_records(db, c);
  for (const auto& t : archive_tables())
    for (auto& r : db.query(select_sql(t), {})) {
      if (!std::holds_alternative<std::int64_t>(r[0]) && !c.problem)
        c.problem = "table " + std::string(t.name) + " holds a row whose record number (" +
                    shown(r[0]) + ") is not an integer";
      c.rows[int_of(r[0])][std::string(t.name)].push_back(SqlRow(r.begin() + 1, r.end()));
    }
  for (const auto& r : db.query("SELECT sha256, content FROM result_json", {}))
    c.blob_sha[text_of(r[0])] = archive_sha256_hex(text_of(r[1]));
  for (const auto& r :
       db.query("SELECT record_seq, key_sha256, signature FROM record_signature", {}))
    c.signatures[int_of(r[0])] = {text_of(r[1]), text_of(r[2])};
}

// Rows, results and signatures that no record of the chain holds: planted (they would attach to
// the record of that number when it is appended) or left by a removed record.
std::optional<std::string> orphan_problem(const ChainContents& c) {
  std::set<std::int64_t> seqs;
  std::set<std::string> results;
  for (const auto& r : c.records) {
    seqs.insert(r.head.seq);
    results.insert(r.head.result_sha256);
  }
  for (const auto& [seq, tables] : c.rows)
    if (!seqs.count(seq))
      return "table " + tables.begin()->first + " holds rows of record " + std::to_string(seq) +
             ", which is not in the chain (planted, or left by a removed record)";
  for (const auto& [seq, signature] : c.signatures)
    if (!seqs.count(seq))
      return "table record_signature holds a signature of record " + std::to_string(seq) +
             ", which is not in the chain";
  for (const auto& [sha, actual] : c.blob_sha)
    if (!results.count(sha))
      return "table result_json holds a result (" + sha.substr(0, 12) +
             ") that no record of the chain files";
  return std::nullopt;
}

std::optional<std::string> signature_problem(const ChainContents& c, const Ed25519Key& key) {
  for (const ChainRecord& r : c.records) {
    const std::string seq = std::to_string(r.head.seq);
    const auto s = c.signatures.find(r.head.seq);
    if (s == c.signatures.end() || s->second.first != key.key_id())
      return "record " + seq + " is not signed by the key given (" + key.key_id().substr(0, 16) +
             ")";
    if (!key.verify_hex(record_signature_message(r.record_hash), s->second.second))
      return "record " + seq + "'s signature does not verify with the key given";
  }
  return std::nullopt;
}

}  // namespace

ChainCheck Archive::verify(const Ed25519Key* public_key) {
  ChainCheck check;
  ChainContents c;
  db_->begin_read();
  try {
    read_contents(*db_, c);
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  check.records = static_cast<std::int64_t>(c.records.size());
  check.head_hash = c.records.empty() ? std::string(kGenesisHash) : c.records.back().record_hash;
  for (const auto& r : c.records) check.hashes.insert(r.record_hash);
  check.problem = c.problem;
  for (std::size_t k = 0; k < c.records.size() && !check.problem; ++k)
    check.problem = check_record(c.records, k, c.rows, c.blob_sha);
  if (!check.problem) check.problem = orphan_problem(c);
  if (!check.problem) check.problem = archive_objects_problem(*db_);
  if (!check.problem && public_key) check.problem = signature_problem(c, *public_key);
  return check;
}

std::vector<HistoryRow> Archive::history(const HistoryQuery& q) {
  std::string sql =
      "SELECT r.seq, u.start_utc, u.host, d.serial, d.model, u.firmware, u.tool_version, u.suite, "
      "u.verdict, u.exit_code, r.result_sha256 FROM record r JOIN run u ON u.record_seq = r.seq "
      "JOIN device d ON d.record_seq = r.seq WHERE 1 = 1";
  SqlRow params;
  auto param = [&](SqlCell v) {
    params.push_back(std::move(v));
    return "$" + std::to_string(params.size());
  };
  if (q.serial) sql += " AND d.serial = " + param(*q.serial);
  if (q.model) sql += " AND d.model = " + param(*q.model);
  for (const auto& t : q.tags) {
    const std::string k = param(t.key), v = param(t.value);
    sql += " AND EXISTS (SELECT 1 FROM tag t WHERE t.record_seq = r.seq AND t.key = " + k +
           " AND t.value = " + v + ")";
  }
  if (q.since) sql += " AND u.start_utc >= " + param(*q.since);
  if (q.until) sql += " AND u.start_utc < " + param(*q.until);
  sql += " ORDER BY u.start_utc, r.result_sha256";
  db_->begin_read();
  std::vector<HistoryRow> out;
  try {
    for (const auto& r : db_->query(sql, params)) {
      HistoryRow h{int_of(r[0]),
                   text_of(r[1]),
                   text_of(r[2]),
                   text_of(r[3]),
                   text_of(r[4]),
                   text_of(r[5]),
                   text_of(r[6]),
                   text_of(r[7]),
                   text_of(r[8]),
                   int_of(r[9]),
                   text_of(r[10]),
                   {},
                   {}};
      for (const auto& f : db_->query("SELECT workload, name, value, unit FROM figure WHERE "
                                      "record_seq = $1 AND name IN ('iops', 'bw') ORDER BY idx",
                                      {r[0]}))
        h.figures.push_back({text_of(f[0]), text_of(f[1]), double_of(f[2]), text_of(f[3])});
      for (const auto& t :
           db_->query("SELECT key, value FROM tag WHERE record_seq = $1 ORDER BY idx", {r[0]}))
        h.tags.push_back({text_of(t[0]), text_of(t[1])});
      out.push_back(std::move(h));
    }
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  return out;
}

namespace {

struct FigureRow {
  double value = 0;
  std::string unit;
  std::optional<std::pair<double, double>> interval;
};

std::map<std::pair<std::string, std::string>, FigureRow> figures_of(SqlConnection& db,
                                                                    std::int64_t seq) {
  std::map<std::pair<std::string, std::string>, FigureRow> out;
  for (const auto& f : db.query("SELECT workload, name, value, unit, interval_low, interval_high "
                                "FROM figure WHERE record_seq = $1 AND name IN ('iops', 'bw')",
                                {seq})) {
    FigureRow row{double_of(f[2]), text_of(f[3]), std::nullopt};
    if (!std::holds_alternative<std::monostate>(f[4]) &&
        !std::holds_alternative<std::monostate>(f[5]))
      row.interval = std::pair{double_of(f[4]), double_of(f[5])};
    out[{text_of(f[0]), text_of(f[1])}] = row;
  }
  return out;
}

std::string wear_of(SqlConnection& db, std::int64_t seq, const char* phase) {
  const auto rows = db.query(
      "SELECT value FROM health WHERE record_seq = $1 AND phase = $2 AND field = 'percentage_used'",
      {seq, std::string(phase)});
  return rows.empty() ? std::string() : text_of(rows[0][0]);
}

DriftAgainst against(SqlConnection& db, std::int64_t now, const SqlRow& then) {
  DriftAgainst a{int_of(then[0]),
                 text_of(then[1]),
                 text_of(then[2]),
                 text_of(then[3]),
                 wear_of(db, int_of(then[0]), "before"),
                 {}};
  const auto before = figures_of(db, a.record);
  for (const auto& [key, f] : figures_of(db, now)) {
    const auto b = before.find(key);
    if (b == before.end()) continue;
    DriftFigure d{key.first,  key.second,         f.unit, f.value, b->second.value,
                  f.interval, b->second.interval, false};
    if (d.now_interval && d.then_interval)
      d.separated = d.now_interval->second < d.then_interval->first ||
                    d.then_interval->second < d.now_interval->first;
    a.figures.push_back(std::move(d));
  }
  return a;
}

}  // namespace

DriftReport Archive::drift(std::int64_t seq) {
  DriftReport report;
  db_->begin_read();
  try {
    const auto self = db_->query(
        "SELECT d.serial, u.firmware FROM device d JOIN run u ON u.record_seq = d.record_seq "
        "WHERE d.record_seq = $1",
        {seq});
    if (!self.empty() && !text_of(self[0][0]).empty()) {
      report.serial = text_of(self[0][0]);
      report.firmware_now = text_of(self[0][1]);
      report.wear_now = wear_of(*db_, seq, "after");
      const std::string earlier =
          "SELECT r.seq, u.start_utc, u.firmware, u.verdict FROM record r JOIN device d ON "
          "d.record_seq = r.seq JOIN run u ON u.record_seq = r.seq WHERE d.serial = $1 AND "
          "r.seq < $2";
      const auto accepted = db_->query(earlier + " AND u.verdict = 'pass' ORDER BY r.seq LIMIT 1",
                                       {report.serial, seq});
      const auto last = db_->query(earlier + " ORDER BY r.seq DESC LIMIT 1", {report.serial, seq});
      if (!accepted.empty()) report.acceptance = against(*db_, seq, accepted[0]);
      if (!last.empty() && (accepted.empty() || int_of(last[0][0]) != int_of(accepted[0][0])))
        report.last = against(*db_, seq, last[0]);
    }
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  return report;
}

std::optional<AcceptanceRecord> Archive::acceptance(const std::string& serial) {
  if (serial.empty()) return std::nullopt;
  std::optional<AcceptanceRecord> out;
  db_->begin_read();
  try {
    const auto rows = db_->query(
        "SELECT r.seq, u.start_utc, u.firmware FROM record r JOIN device d ON d.record_seq = r.seq "
        "JOIN run u ON u.record_seq = r.seq WHERE d.serial = $1 AND u.verdict = 'pass' ORDER BY "
        "r.seq LIMIT 1",
        {serial});
    if (!rows.empty()) {
      AcceptanceRecord a;
      a.record = int_of(rows[0][0]);
      a.start_utc = text_of(rows[0][1]);
      a.firmware = text_of(rows[0][2]);
      a.wear = wear_of(*db_, a.record, "before");
      for (const auto& [key, f] : figures_of(*db_, a.record))
        a.figures.push_back({key.first, key.second, f.unit, f.value, f.interval});
      out = std::move(a);
    }
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  return out;
}

RecordHealth Archive::record_health(std::int64_t seq) {
  RecordHealth h;
  db_->begin_read();
  try {
    for (const auto& v : db_->query("SELECT status, message FROM verdict WHERE record_seq = $1 AND "
                                    "kind = 'health' ORDER BY idx",
                                    {seq})) {
      ++h.judged;
      if (text_of(v[0]) != "pass") h.failed.push_back(text_of(v[1]));
    }
    h.read = !db_->query("SELECT 1 FROM health WHERE record_seq = $1 LIMIT 1", {seq}).empty();
    h.wear = wear_of(*db_, seq, "after");
    if (h.wear.empty()) h.wear = wear_of(*db_, seq, "before");
    db_->commit();
  } catch (...) {
    db_->rollback();
    throw;
  }
  return h;
}

std::optional<std::string> Archive::result_json(const std::string& sha256) {
  const auto rows = db_->query("SELECT content FROM result_json WHERE sha256 = $1", {sha256});
  if (rows.empty()) return std::nullopt;
  return text_of(rows[0][0]);
}

std::vector<SqlRow> Archive::chain_segment(std::int64_t first, std::int64_t last) {
  return db_->query(
      "SELECT seq, result_sha256, content_sha256, prev_hash, record_hash, kind, recorded_utc "
      "FROM record WHERE seq >= $1 AND seq <= $2 ORDER BY seq",
      {first, last});
}

std::vector<ArchivedFile> Archive::report_files(std::int64_t seq) {
  std::vector<ArchivedFile> out;
  for (const auto& r : db_->query(
           "SELECT kind, path, sha256, bytes FROM report_file WHERE record_seq = $1 ORDER BY idx",
           {seq}))
    out.push_back({text_of(r[0]), text_of(r[1]), text_of(r[2]), int_of(r[3])});
  return out;
}

std::int64_t Archive::record_count() {
  const auto rows = db_->query("SELECT count(*) FROM record", {});
  return rows.empty() ? 0 : int_of(rows[0][0]);
}

}  // namespace storqual::reporting
