// SPDX-License-Identifier: Apache-2.0
// The archive's SQLite engine (sql_connection.hpp): one file, WAL mode for many writers, a busy
// timeout so that a writer waits for another's short transaction instead of failing. What the path
// is, is looked at before SQLite opens it: SQLite would write its header over a device or into
// another application's database.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <thread>

#include "archive/sql_connection.hpp"
#include "model/errors.hpp"

namespace storqual::reporting {
namespace {

std::atomic<const std::atomic<bool>*> g_stop{nullptr};

// How long a writer waits for the lock another process holds (a record takes milliseconds;
// eight processes appending at once wait for each other, docs/archive.md "Many writers"):
// archive_lock_wait_s(), 60 s unless STORQUAL_ARCHIVE_LOCK_WAIT says.
struct BusyWait {
  std::int64_t limit_ms = 60'000;
  std::int64_t started_ms = 0;
  bool stopped_before = false;  // a run interrupted before it records still waits (the limit)
};

// SQLite's busy wait, as sqlite3_busy_timeout's (short sleeps, up to limit_ms in all), that
// also gives up when a stop signal comes during it.
int busy_wait(void* state, int attempt) {
  using namespace std::chrono;
  auto& wait = *static_cast<BusyWait*>(state);
  const std::int64_t now =
      duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
  if (attempt == 0) wait.started_ms = now, wait.stopped_before = archive_stop_requested();
  if ((!wait.stopped_before && archive_stop_requested()) || now - wait.started_ms >= wait.limit_ms)
    return 0;
  std::this_thread::sleep_for(milliseconds(attempt < 10 ? 2 : 25));
  return 1;
}

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

std::string errno_text(int e) {
  return std::strerror(e);
}

// What `st` is when it is not a regular file, else null.
const char* not_a_file(const struct stat& st) {
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISCHR(st.st_mode)) return "a character device";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  return S_ISREG(st.st_mode) ? nullptr : "not a regular file";
}

// The path before SQLite sees it: an existing regular file, not empty, with SQLite's header. Only
// a regular file is opened here (opening some character devices acts: a tape rewinds).
void check_archive_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int e = errno;
    if (e == ENOENT) throw ArchiveError(path + ": no storqual archive there");
    throw ArchiveError(path + ": cannot look at the archive: " + errno_text(e));
  }
  if (const char* what = not_a_file(st))
    throw ArchiveError(path + ": " + what +
                       ", not an archive file; storqual leaves it as it is (--archive names an "
                       "SQLite file; a device to qualify is a --target)");
  if (st.st_size == 0)
    throw ArchiveError(path +
                       ": an empty file, not a storqual archive; storqual leaves it as it is "
                       "(name another file, or remove this one)");
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw ArchiveError(path + ": cannot open the archive: " + errno_text(errno));
  char header[16] = {};
  struct stat again {};
  const bool same = ::fstat(fd, &again) == 0 && again.st_ino == st.st_ino &&
                    again.st_dev == st.st_dev && S_ISREG(again.st_mode);
  const ssize_t got = same ? ::pread(fd, header, sizeof header, 0) : -1;
  ::close(fd);
  if (!same) throw ArchiveError(path + ": changed while storqual looked at it; left as it is");
  if (got != static_cast<ssize_t>(sizeof header) ||
      std::string_view(header, sizeof header) != kSqliteMagic)
    throw ArchiveError(path + ": not an SQLite database; storqual leaves it as it is");
}

// A read-only connection on a read-only mount opens the file as immutable: SQLite then neither
// makes nor needs the -shm and -wal files beside it.
bool on_read_only_mount(const std::string& path) {
  struct statvfs vfs {};
  return ::statvfs(path.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#' || c <= 0x20 || c >= 0x7f) {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?immutable=1";
}

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(std::string path, const std::string& name, int flags) : path_(std::move(path)) {
    if (sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
      std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      db_ = nullptr;
      throw ArchiveError(path_ + ": cannot open the SQLite archive: " + why);
    }
  }
  // Apart from the constructor, so that a failure here closes the file (the destructor runs).
  void prepare(bool write, bool check_mark, bool check_damage = false) {
    sqlite3_extended_result_codes(db_, 1);
    busy_.limit_ms = std::int64_t{archive_lock_wait_s()} * 1000;
    sqlite3_busy_handler(db_, busy_wait, &busy_);
    // Reading the header first: a file that is not a database fails here, before anything
    // could write to it; then whose database it is.
    query("SELECT count(*) FROM sqlite_master", {});
    if (check_mark) check_is_archive();
    if (!write) return;
    if (check_damage) check_not_damaged();
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
  // The mark (application_id), or an archive of before the mark: storqual's own tables (its
  // migration to schema 4 marks it). Anything else is another application's database.
  void check_is_archive() {
    const auto rows = query("PRAGMA application_id", {});
    const auto* id = rows.empty() ? nullptr : std::get_if<std::int64_t>(&rows[0][0]);
    if (id && *id == kArchiveApplicationId) return;
    if (id && *id != 0) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%08llx", static_cast<unsigned long long>(*id & 0xffffffff));
      throw ArchiveError(path_ + ": the SQLite database of another application (application_id 0x" +
                         hex + "), not a storqual archive; storqual leaves it as it is");
    }
    if (has_table("schema_version") && has_table("record") && has_table("result_json")) return;
    throw ArchiveError(path_ +
                       ": an SQLite database that is not a storqual archive (it has neither "
                       "storqual's mark nor its tables); storqual leaves it as it is");
  }

  // A damaged file is not appended to (a record over a broken b-tree could be lost with it):
  // SQLite's quick_check (every page and index entry, not the index contents) before the first
  // write.
  void check_not_damaged() {
    const auto rows = query("PRAGMA quick_check(3)", {});
    std::string found;
    for (const auto& r : rows) {
      const auto* text = r.empty() ? nullptr : std::get_if<std::string>(&r[0]);
      if (text && *text == "ok") return;
      found += (found.empty() ? "" : "; ") + (text ? *text : std::string("?"));
    }
    throw ArchiveError(path_ + ": the archive is damaged (PRAGMA quick_check: " + found +
                       "); storqual does not append to it (copy what it can read with sqlite3's "
                       ".recover, or record into another archive)");
  }

  [[noreturn]] void fail(const std::string& why) {
    std::string what = path_ + ": " + why;
    const int code = sqlite3_extended_errcode(db_);
    if ((code & 0xff) == SQLITE_BUSY && !busy_.stopped_before && archive_stop_requested())
      throw ArchiveError(path_ + ": interrupted while waiting for the archive's writer lock");
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
  BusyWait busy_;
};

}  // namespace

void set_archive_stop_flag(const std::atomic<bool>* stop) noexcept {
  g_stop.store(stop);
}

bool archive_stop_requested() noexcept {
  const std::atomic<bool>* stop = g_stop.load();
  return stop && stop->load();
}

int archive_lock_wait_s() {
  const char* env = std::getenv("STORQUAL_ARCHIVE_LOCK_WAIT");
  if (!env || !*env) return 60;
  const std::string_view text(env);
  int seconds = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || seconds < 1 || seconds > 3600)
    throw UsageError("STORQUAL_ARCHIVE_LOCK_WAIT: '" + std::string(text.substr(0, 40)) +
                     "' is not a whole number of seconds from 1 to 3600 (how long a writer waits "
                     "for the archive's writer lock; unset: 60)");
  return seconds;
}

std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, ArchiveAccess access) {
  check_archive_file(path);
  std::unique_ptr<SqliteConnection> connection;
  if (access != ArchiveAccess::Read)
    connection = std::make_unique<SqliteConnection>(path, path, SQLITE_OPEN_READWRITE);
  else if (on_read_only_mount(path))
    connection = std::make_unique<SqliteConnection>(path, immutable_uri(path),
                                                    SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  else
    connection = std::make_unique<SqliteConnection>(path, path, SQLITE_OPEN_READONLY);
  connection->prepare(access != ArchiveAccess::Read, true, access == ArchiveAccess::Record);
  return connection;
}

std::unique_ptr<SqlConnection> create_sqlite(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) throw ArchiveError(path + ": exists already");
  auto connection =
      std::make_unique<SqliteConnection>(path, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  connection->prepare(false, false, false);
  connection->execute_script("PRAGMA synchronous=FULL");
  return connection;
}

}  // namespace storqual::reporting
