// SPDX-License-Identifier: Apache-2.0
// What an SQLite archive path may be (docs/archive.md, "Where" and "Nothing lost"): a device, a
// directory, a FIFO, a socket, an empty file, a file that is not SQLite and another application's
// SQLite database are refused before SQLite sees them and left byte for byte as they were, by the
// commands that read and by those that record; the commands that read open read-only, create
// nothing and read an archive on a read-only mount; an archive of before the mark is marked by its
// migration; and `archive verify --head` sees a rollback and an emptied file. And what leaves the
// archive (issue 44): an export copies only files the record proves, CSV fields cannot start a
// formula, the terminal gets no control character, repeated tags stay repeated; a libpq
// key=value string is a PostgreSQL archive and one with a password is refused unrepeated.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "archive/archive.hpp"
#include "archive/archive_export.hpp"
#include "archive/archive_store.hpp"
#include "archive/history_format.hpp"
#include "archive/record_signature.hpp"
#include "reporting/result_json.hpp"
#include "reporting/run_console.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_command;
using testing::run_shell;
using testing::ScratchDir;

testing::CommandResult storqual(std::vector<std::string> args) {
  args.insert(args.begin(), STORQUAL_BINARY);
  return run_command(args);
}

ArchiveLocation at(const fs::path& p) {
  return parse_archive_location(p.string(), "test");
}

void record_sample(Archive& a, const std::string& serial) {
  RunResult r = sample::run(false);
  for (auto& row : r.device.identity)
    if (row.field == "serial") row.value = serial;
  (void)a.record(r, to_json_text(r), {}, {});
}

// Neither opening refuses it with `why` in the message, and nothing was made beside it.
void expect_refused(const fs::path& p, const std::string& why) {
  for (int read = 0; read < 2; ++read) {
    try {
      if (read)
        (void)Archive::open_to_read(at(p));
      else
        (void)Archive::open(at(p));
      ADD_FAILURE() << p << " was opened as an archive";
    } catch (const ArchiveError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
  }
  for (const char* beside : {"-wal", "-shm", "-journal"})
    EXPECT_FALSE(fs::exists(p.string() + beside)) << p.string() + beside;
}

// A result file for `archive import`.
fs::path result_file(const ScratchDir& dir) {
  const fs::path p = dir / "result.json";
  std::ofstream(p, std::ios::binary) << to_json_text(sample::run(false));
  return p;
}

// The CLI's reading and recording commands on `p`: refused (exit 3, the path named), nothing made.
void expect_cli_refuses(const fs::path& p, const ScratchDir& dir) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"archive", "verify", "--archive", p.string()},
           {"history", "--serial", "X", "--archive", p.string()},
           {"archive", "import", result_file(dir).string(), "--archive", p.string()}}) {
    const auto r = storqual(args);
    EXPECT_NE(r.exit_code, 0) << args[0] << " " << args[1] << ": " << r.out;
    EXPECT_EQ(r.out.find("chain is whole"), std::string::npos) << r.out;
  }
  const auto v = storqual({"archive", "verify", "--archive", p.string()});
  EXPECT_EQ(v.exit_code, 3) << v.out << v.err;
  EXPECT_NE(v.err.find(p.string()), std::string::npos) << v.err;
}

TEST(ArchiveOpening, ACharacterDeviceIsRefusedAndNothingIsMadeBesideIt) {
  if (fs::exists("/dev/null-journal") || fs::exists("/dev/null-wal"))
    GTEST_SKIP() << "/dev/null-journal or -wal exists already";
  ScratchDir dir("archive-evidence");
  expect_refused("/dev/null", "a character device, not an archive file");
  expect_cli_refuses("/dev/null", dir);
  EXPECT_FALSE(fs::exists("/dev/null-journal"));
}

TEST(ArchiveOpening, ABlockDeviceIsRefusedAndItsFilesystemKept) {
  STORQUAL_REQUIRE_ROOT();
  if (run_shell("command -v mkfs.ext4 && command -v blkid").exit_code != 0)
    GTEST_FAIL() << "cannot run: mkfs.ext4 or blkid (e2fsprogs, util-linux) is missing";
  ScratchDir dir("archive-evidence");
  const fs::path backing = dir / "disk.img";
  { std::ofstream(backing, std::ios::binary).seekp((8 << 20) - 1).put('\0'); }
  ASSERT_EQ(run_shell("mkfs.ext4 -q -F '" + backing.string() + "'").exit_code, 0);
  std::unique_ptr<testing::LoopDevice> loop;
  try {
    loop = std::make_unique<testing::LoopDevice>(backing);
  } catch (const std::exception& e) {
    GTEST_FAIL() << "cannot run: no loop device: " << e.what();
  }
  const std::string before = read_file(backing);
  expect_refused(loop->path(), "a block device, not an archive file");
  expect_cli_refuses(loop->path(), dir);
  EXPECT_EQ(run_shell("blkid -p -o value -s TYPE " + loop->path()).out, "ext4\n");
  loop->detach();
  EXPECT_TRUE(read_file(backing) == before) << "the device's bytes changed";
}

TEST(ArchiveOpening, ADirectoryAFifoAndASocketAreRefused) {
  ScratchDir dir("archive-evidence");
  fs::create_directory(dir / "folder");
  expect_refused(dir / "folder", "a directory, not an archive file");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  expect_refused(dir / "fifo", "a FIFO, not an archive file");
  expect_cli_refuses(dir / "fifo", dir);
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock = (dir / "sock").string();
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::copy(sock.begin(), sock.end(), addr.sun_path);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  expect_refused(sock, "a socket, not an archive file");
  ::close(s);
}

TEST(ArchiveOpening, AnEmptyFileAndAFileThatIsNotSqliteAreLeftAsTheyWere) {
  ScratchDir dir("archive-evidence");
  { std::ofstream(dir / "empty.sqlite"); }
  expect_refused(dir / "empty.sqlite", "an empty file, not a storqual archive");
  expect_cli_refuses(dir / "empty.sqlite", dir);
  EXPECT_EQ(fs::file_size(dir / "empty.sqlite"), 0u);
  { std::ofstream(dir / "notes.txt") << "shopping list\n"; }
  expect_refused(dir / "notes.txt", "not an SQLite database");
  EXPECT_EQ(read_file(dir / "notes.txt"), "shopping list\n");
}

TEST(ArchiveOpening, AnotherApplicationsSqliteDatabaseIsLeftByteForByte) {
  STORQUAL_REQUIRE(storqual::testing::have_program("sqlite3"), "sqlite3 (apt-get install sqlite3)");
  ScratchDir dir("archive-evidence");
  const fs::path grafana = dir / "grafana.db", marked = dir / "marked.db", bare = dir / "bare.db";
  ASSERT_EQ(run_shell("sqlite3 '" + grafana.string() +
                      "' 'CREATE TABLE dashboard (id INTEGER, data TEXT); INSERT INTO dashboard "
                      "VALUES (1, \"x\")'")
                .exit_code,
            0);
  ASSERT_EQ(run_shell("sqlite3 '" + marked.string() +
                      "' 'PRAGMA application_id = 1234; CREATE TABLE record (x)'")
                .exit_code,
            0);
  ASSERT_EQ(run_shell("sqlite3 '" + bare.string() + "' 'VACUUM'").exit_code, 0);
  for (const auto& [p, why] : std::vector<std::pair<fs::path, std::string>>{
           {grafana, "an SQLite database that is not a storqual archive"},
           {marked, "another application (application_id 0x000004d2)"},
           {bare, "an SQLite database that is not a storqual archive"}}) {
    const std::string before = read_file(p);
    expect_refused(p, why);
    expect_cli_refuses(p, dir);
    EXPECT_TRUE(read_file(p) == before) << p << " changed";
  }
  EXPECT_EQ(run_shell("sqlite3 '" + grafana.string() + "' 'PRAGMA journal_mode'").out, "delete\n");
}

TEST(ArchiveOpening, ReadingCreatesNothingAndRecordingMarksTheFile) {
  ScratchDir dir("archive-evidence");
  const fs::path p = dir / "archive.sqlite";
  EXPECT_THROW((void)Archive::open_to_read(at(p)), ArchiveError);
  EXPECT_FALSE(fs::exists(p));
  EXPECT_EQ(storqual({"archive", "verify", "--archive", p.string()}).exit_code, 2);
  EXPECT_EQ(storqual({"history", "--serial", "X", "--archive", p.string()}).exit_code, 2);
  EXPECT_FALSE(fs::exists(p));
  auto a = Archive::open(at(p));
  record_sample(*a, "M1");
  const auto id = a->connection().query("PRAGMA application_id", {});
  EXPECT_EQ(std::get<std::int64_t>(id[0][0]), kArchiveApplicationId);
  const auto version = a->connection().query("PRAGMA user_version", {});
  EXPECT_EQ(std::get<std::int64_t>(version[0][0]), 4);
  // Only the archive itself is left in the folder (no temporary file of its making).
  a.reset();
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename());
  for (const auto& n : names) EXPECT_EQ(n.rfind("archive.sqlite", 0), 0u) << n;
  // A reading connection cannot write.
  auto r = Archive::open_to_read(at(p));
  EXPECT_THROW(r->connection().execute_script("DELETE FROM tag"), ArchiveError);
  EXPECT_FALSE(r->verify().problem);
}

TEST(ArchiveOpening, AnArchiveOfBeforeTheMarkIsReadAndThenMarkedByItsMigration) {
  ScratchDir dir("archive-evidence");
  const fs::path p = dir / "archive.sqlite";
  {
    auto a = Archive::open(at(p));
    for (int i = 0; i < 3; ++i) record_sample(*a, "L" + std::to_string(i));
    // As an archive of schema 3 was: no mark, no version 4 (the tables stay STRICT here; the
    // migration rebuilds them again).
    a->connection().execute_script(
        "PRAGMA application_id = 0; PRAGMA user_version = 0; DELETE FROM schema_version WHERE "
        "version = 4");
  }
  {
    auto r = Archive::open_to_read(at(p));
    const ChainCheck c = r->verify();
    EXPECT_FALSE(c.problem) << *c.problem;
    EXPECT_EQ(c.records, 3);
    const auto id = r->connection().query("PRAGMA application_id", {});
    EXPECT_EQ(std::get<std::int64_t>(id[0][0]), 0) << "reading marked it";
  }
  auto a = Archive::open(at(p));
  const auto id = a->connection().query("PRAGMA application_id", {});
  EXPECT_EQ(std::get<std::int64_t>(id[0][0]), kArchiveApplicationId);
  const ChainCheck c = a->verify();
  EXPECT_FALSE(c.problem) << *c.problem;
  EXPECT_EQ(c.records, 3);
}

TEST(ArchiveOpening, AnArchiveOnAReadOnlyMountIsRead) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("archive-evidence");
  const fs::path mnt = dir / "mnt";
  fs::create_directory(mnt);
  if (run_shell("mount -t tmpfs -o size=16m storqual-test '" + mnt.string() + "'").exit_code != 0)
    GTEST_FAIL() << "cannot run: cannot mount a tmpfs";
  struct Unmount {
    fs::path m;
    ~Unmount() { (void)run_shell("umount '" + m.string() + "'"); }
  } unmount{mnt};
  {
    auto a = Archive::open(at(mnt / "archive.sqlite"));
    record_sample(*a, "RO1");
  }
  ASSERT_EQ(run_shell("mount -o remount,ro '" + mnt.string() + "'").exit_code, 0);
  const auto r = storqual({"archive", "verify", "--archive", (mnt / "archive.sqlite").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 records, the chain is whole"), std::string::npos) << r.out;
  const auto h =
      storqual({"history", "--serial", "RO1", "--archive", (mnt / "archive.sqlite").string()});
  EXPECT_EQ(h.exit_code, 0) << h.err;
  EXPECT_NE(h.out.find("1 run"), std::string::npos) << h.out;
}

// A damaged file (a page of an index overwritten) is not appended to: quick_check before a write.
TEST(ArchiveOpening, ADamagedArchiveIsNotAppendedTo) {
  ScratchDir dir("archive-evidence");
  const fs::path p = dir / "archive.sqlite";
  std::int64_t page = 0, size = 0;
  {
    auto a = Archive::open(at(p));
    for (int i = 0; i < 20; ++i) record_sample(*a, "D" + std::to_string(i));
    page = std::get<std::int64_t>(a->connection().query(
        "SELECT rootpage FROM sqlite_master WHERE name = 'device_serial'", {})[0][0]);
    size = std::get<std::int64_t>(a->connection().query("PRAGMA page_size", {})[0][0]);
  }
  {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((page - 1) * size + 8);
    const std::string garbage(static_cast<std::size_t>(size) - 8, '\x5a');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const std::string before = read_file(p);
  try {
    auto a = Archive::open(at(p));
    record_sample(*a, "D99");
    FAIL() << "recorded into a damaged archive";
  } catch (const ArchiveError& e) {
    EXPECT_NE(std::string(e.what()).find("the archive is damaged (PRAGMA quick_check"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(read_file(p) == before) << "the damaged file changed";
}

TEST(ArchiveOpening, VerifyHeadSeesARollbackACutAndAnEmptiedFile) {
  ScratchDir dir("archive-evidence");
  const fs::path p = dir / "archive.sqlite";
  {
    auto a = Archive::open(at(p));
    record_sample(*a, "H1");
  }
  fs::copy_file(p, dir / "before.sqlite");
  std::string head;
  {
    auto a = Archive::open(at(p));
    record_sample(*a, "H2");
    head = a->verify().head_hash;
  }
  auto verify_head = [&](const std::string& h) {
    return storqual({"archive", "verify", "--archive", p.string(), "--head", h});
  };
  EXPECT_EQ(verify_head(head).exit_code, 0);
  {
    auto a = Archive::open(at(p));
    record_sample(*a, "H3");
  }
  EXPECT_EQ(verify_head(head).exit_code, 0) << "past the head kept";
  // Rolled back to the copy of before.
  fs::copy_file(dir / "before.sqlite", p, fs::copy_options::overwrite_existing);
  fs::remove(p.string() + "-wal");
  fs::remove(p.string() + "-shm");
  auto rolled = verify_head(head);
  EXPECT_EQ(rolled.exit_code, 1) << rolled.out << rolled.err;
  EXPECT_NE(rolled.out.find("not at or past the head given"), std::string::npos) << rolled.out;
  // Without --head the rolled-back chain is whole: only the kept head shows it.
  EXPECT_EQ(storqual({"archive", "verify", "--archive", p.string()}).exit_code, 0);
  // Emptied.
  { std::ofstream(p, std::ios::trunc); }
  fs::remove(p.string() + "-wal");
  rolled = verify_head(head);
  EXPECT_EQ(rolled.exit_code, 1) << rolled.out << rolled.err;
  EXPECT_NE(rolled.out.find("an empty file"), std::string::npos) << rolled.out;
  EXPECT_EQ(verify_head("xyz").exit_code, 2);
}

HistoryRow hostile_row() {
  HistoryRow r;
  r.start_utc = "2026-12-01T10:00:00Z";
  r.host = "@SUM(A1)";
  r.serial = "=HYPERLINK(\"http://x\",\"y\")\x1b[2J\x07";
  r.model = "+cmd|' /C calc'!A0\x1b]0;pwned\x07";
  r.firmware = "-2+3";
  r.verdict = "pass";
  r.tags = {{"po", "=1+1"}, {"po", "\t=2"}, {"lot", "L1"}};
  return r;
}

TEST(ArchiveOutput, CsvFieldsCannotStartAFormula) {
  for (const char* f : {"=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "\r=1"}) {
    const std::string out = csv_field(f);
    EXPECT_EQ(out.substr(0, 2), "\"'") << f << " -> " << out;
  }
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  const std::string csv = format_history_csv({hostile_row()});
  const std::string line = csv.substr(csv.find("\r\n") + 2);
  EXPECT_EQ(line.find(",="), std::string::npos) << line;
  EXPECT_EQ(line.find(",@"), std::string::npos) << line;
  EXPECT_EQ(line.find(",+"), std::string::npos) << line;
  EXPECT_NE(line.find(",\"'=HYPERLINK"), std::string::npos) << line;
}

TEST(ArchiveOutput, TheTerminalGetsNoControlCharacterAndRepeatedTagsStay) {
  const std::string table = format_history_table({hostile_row()});
  for (char c : table) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 || c == '\n') << "control character " << int(u) << " in " << table;
  }
  const auto json = nlohmann::json::parse(format_history_json({hostile_row()}));
  const auto& tags = json["runs"][0]["tags"];
  ASSERT_EQ(tags.size(), 3u) << json.dump();
  EXPECT_EQ(tags[0]["key"], "po");
  EXPECT_EQ(tags[1]["key"], "po");
  EXPECT_EQ(tags[1]["value"], "\t=2");
}

TEST(ArchiveOutput, TheRunHeaderGetsNoControlCharacterFromTheDevice) {
  RunHeader h;
  h.target = "/dev/sdx";
  h.vendor = "ACME\x1b]0;owned\x07";
  h.model =
      "X1\x1b[2J\xc2\x9b"
      "31m";
  h.transport = "sata\r";
  const std::string text = format_run_header(h);
  for (char c : text)
    EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 || c == '\n') << int(c) << " in " << text;
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos) << "a C1 control (CSI)";
  EXPECT_NE(text.find("ACME]0;owned X1[2J31m (sata )"), std::string::npos) << text;
}

TEST(ArchiveLocationText, AKeyValueStringIsPostgresqlAndItsPasswordIsRefusedUnrepeated) {
  const auto l = parse_archive_location("dbname=lab host=/run/postgresql", "--archive");
  EXPECT_EQ(l.kind, ArchiveLocation::Kind::Postgresql);
  EXPECT_EQ(parse_archive_location("./dbname=lab", "--archive").kind,
            ArchiveLocation::Kind::Sqlite);
  for (const char* text : {"dbname=lab password=s3cret", "host=/tmp  password = s3cret"}) {
    try {
      (void)parse_archive_location(text, "--archive");
      ADD_FAILURE() << text << " accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).find("s3cret"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("holds a password"), std::string::npos) << e.what();
    }
  }
  ScratchDir dir("archive-evidence");
  const auto r = run_shell("cd '" + dir.path().string() +
                           "' && '" STORQUAL_BINARY
                           "' history --serial X --archive 'dbname=lab password=s3cret'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("s3cret"), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(fs::is_empty(dir.path())) << "a file was made for the string";
}

TEST(ArchiveLocationText, TheRecordItLaterCommandIsShellQuoted) {
  const auto where = parse_archive_location("/tmp/my archive's.sqlite", "--archive");
  EXPECT_EQ(archive_import_command("/tmp/run 1/$(reboot).json", where),
            "storqual archive import '/tmp/run 1/$(reboot).json' --archive "
            "'/tmp/my archive'\\''s.sqlite'");
  EXPECT_EQ(shell_quoted("/tmp/a.json"), "/tmp/a.json");
}

TEST(ArchiveExport, OnlyWhatTheRecordProvesIsCopied) {
  ScratchDir dir("archive-evidence");
  const fs::path secret = dir / "shadow";
  std::ofstream(secret) << "root:$6$secret\n";
  const fs::path sheet = dir / "sheet.xml";
  std::ofstream(sheet) << "<spec/>\n";
  auto a = Archive::open(at(dir / "a.sqlite"));
  RunResult leak = sample::run(false);
  leak.spec.path = secret.string();  // no SHA-256 of it
  leak.spec.sha256 = "";
  leak.spec.suite_path = "/dev/zero";  // not a regular file
  leak.spec.suite_sha256 = std::string(64, 'a');
  (void)a->record(leak, to_json_text(leak), {}, {{"po", "1"}});
  RunResult proved = sample::run(false);
  proved.environment.start_utc = "2026-11-29T18:30:00Z";
  proved.spec.path = sheet.string();
  proved.spec.sha256 = archive_sha256_hex(read_file(sheet));
  proved.spec.suite_path = "";
  (void)a->record(proved, to_json_text(proved), {}, {{"po", "1"}});
  HistoryQuery q;
  q.tags = {{"po", "1"}};
  const auto summary = export_records(*a, a->history(q), (dir / "out").string());
  const std::string manifest = read_file(dir / "out" / "MANIFEST.sha256");
  EXPECT_EQ(manifest.find("shadow"), std::string::npos) << manifest;
  EXPECT_EQ(manifest.find("zero"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("  specs/" + proved.spec.sha256.substr(0, 12) + "-sheet.xml"),
            std::string::npos)
      << manifest;
  std::string said;
  for (const auto& n : summary.not_copied) said += n + "\n";
  EXPECT_NE(
      said.find("spec sheet " + secret.string() + ": not copied, the record holds no SHA-256"),
      std::string::npos)
      << said;
  EXPECT_NE(said.find("suite /dev/zero: not copied, not a regular file"), std::string::npos)
      << said;
  const auto about = nlohmann::json::parse(read_file(dir / "out" / "export.json"));
  EXPECT_EQ(about["records"][0]["tags"][0]["value"], "1");
}

// The manifest as sha256sum writes it, for an attacker who edits an export and regenerates it.
void regenerate_manifest(const fs::path& out) {
  ASSERT_EQ(run_shell("cd '" + out.string() +
                      "' && find . -type f ! -name 'MANIFEST.sha256*' -printf '%P\\n' | sort | "
                      "xargs sha256sum > MANIFEST.sha256")
                .exit_code,
            0);
}

TEST(ArchiveExport, AnExportProvesItselfAndItsSignedManifestCannotBeRegenerated) {
  STORQUAL_REQUIRE(storqual::testing::have_program("openssl"), "openssl (apt-get install openssl)");
  ScratchDir dir("archive-evidence");
  const std::string priv = (dir / "lab.pem").string(), pub = (dir / "lab.pub").string();
  const std::string other = (dir / "other.pub").string();
  ASSERT_EQ(run_shell("openssl genpkey -algorithm ed25519 -out " + priv + " && openssl pkey -in " +
                      priv + " -pubout -out " + pub + " && openssl genpkey -algorithm ed25519 | " +
                      "openssl pkey -pubout -out " + other)
                .exit_code,
            0);
  auto a = Archive::open(at(dir / "a.sqlite"));
  for (int i = 0; i < 3; ++i) {
    RunResult r = sample::run(false);
    r.environment.start_utc = "2026-11-29T18:0" + std::to_string(i) + ":00Z";
    (void)a->record(r, to_json_text(r), {}, {{"po", "4711"}, {"unit", std::to_string(i)}});
  }
  HistoryQuery q;
  q.tags = {{"po", "4711"}};
  const fs::path out = dir / "out";
  const auto key = Ed25519Key::load_private(priv, "--sign-key");
  (void)export_records(*a, a->history(q), out.string(), key.get());
  const auto lab = Ed25519Key::load_public(pub, "--public-key");
  ExportCheck c = verify_export(out.string(), lab.get());
  EXPECT_FALSE(c.problem) << *c.problem;
  EXPECT_EQ(c.records, 3u);
  EXPECT_EQ(c.head_hash, a->verify().head_hash);
  const auto stranger = Ed25519Key::load_public(other, "--public-key");
  EXPECT_NE(verify_export(out.string(), stranger.get()).problem.value_or("").find("not signed by"),
            std::string::npos);
  const auto cli = storqual({"archive", "verify-export", out.string(), "--public-key", pub});
  EXPECT_EQ(cli.exit_code, 0) << cli.out << cli.err;
  // A unit moved out of the order in export.json, the manifest regenerated: the content hash no
  // longer follows, and the signature no longer covers the manifest.
  std::string about = read_file(out / "export.json");
  about.replace(about.find("\"4711\""), 6, "\"4712\"");
  std::ofstream(out / "export.json", std::ios::trunc) << about;
  regenerate_manifest(out);
  EXPECT_NE(verify_export(out.string(), nullptr)
                .problem.value_or("")
                .find("its content hash does not follow from its exported result"),
            std::string::npos)
      << verify_export(out.string(), nullptr).problem.value_or("");
  EXPECT_EQ(verify_export(out.string(), lab.get()).problem.value_or(""),
            "the manifest's signature does not verify with the key given");
  const auto bad = storqual({"archive", "verify-export", out.string()});
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  // A file the manifest does not list.
  std::ofstream(out / "extra.txt") << "x";
  EXPECT_EQ(verify_export(out.string(), nullptr).problem.value_or(""),
            "extra.txt is in the export but not in the manifest");
}

}  // namespace
}  // namespace storqual::reporting
