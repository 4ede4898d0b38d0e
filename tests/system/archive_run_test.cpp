// SPDX-License-Identifier: Apache-2.0
// The acceptance archive end to end with the real binary (docs/archive.md): `storqual run`
// records into the archive the option or STORQUAL_ARCHIVE names; a corrupt SQLite file or a
// stopped PostgreSQL server costs the run nothing (it measures, writes its reports, exits with its
// verdict, says how to import it later, and the file is left as it was), and the import records
// it once; eight processes of ten runs each (fifty in `make archive-writers`) into one SQLite file
// and into one PostgreSQL database at once give 80 (400) records in each, a whole chain and the
// same history.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "archive/sql_connection.hpp"
#include "tests/support/postgres_server.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::count;
using testing::PostgresServer;
using testing::read_file;
using testing::run_command;
using testing::run_shell;
using testing::ScratchDir;
using testing::write_random_file;
using Json = nlohmann::json;

using ::storqual::testing::write_text;

CommandResult storqual(std::vector<std::string> args) {
  args.insert(args.begin(), STORQUAL_BINARY);
  return run_command(args);
}

// One short rated read: a run that passes in well under a second.
constexpr const char* kQuickSuite =
    "<suite name=\"archive-quick\" description=\"one short rated read\">\n"
    "  <defaults direct=\"0\" runtime=\"100ms\" ramp_time=\"0s\" size=\"1m\" numjobs=\"1\"/>\n"
    "  <workload id=\"quick-read\" rw=\"randread\" bs=\"4k\" iodepth=\"1\" rate_iops=\"2000\"/>\n"
    "</suite>\n";

struct QuickRun {
  ScratchDir dir{"archive-run"};
  QuickRun() {
    fs::create_directories(dir / "target");
    write_text(dir / "quick.xml", kQuickSuite);
  }
  std::vector<std::string> args(const std::string& out) const {
    return {"run",
            "--target",
            (dir / "target").string(),
            "--suite",
            (dir / "quick.xml").string(),
            "--out",
            (dir / out).string()};
  }
  CommandResult run(const std::string& out, std::vector<std::string> more) const {
    auto a = args(out);
    a.insert(a.end(), more.begin(), more.end());
    return storqual(a);
  }
};

TEST(ArchiveRun, RecordsWhereTheEnvironmentSaysAndVerifies) {
  QuickRun q;
  const std::string archive = (q.dir / "env.sqlite").string();
  ASSERT_EQ(setenv("STORQUAL_ARCHIVE", archive.c_str(), 1), 0);
  const auto first = q.run("r1", {"--tag", "po=4711", "--tag", "lot=L23"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("archive: recorded as record 1 in " + archive), std::string::npos)
      << first.out;
  const auto second = q.run("r2", {"--tag", "po=4711"});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  const auto verify = storqual({"archive", "verify"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("2 records, the chain is whole"), std::string::npos) << verify.out;
  const auto history = storqual({"history", "--tag", "po=4711", "--json"});
  ASSERT_EQ(history.exit_code, 0) << history.err;
  const Json h = Json::parse(history.out);
  ASSERT_EQ(h["runs"].size(), 2u) << history.out;
  EXPECT_EQ(h["runs"][0]["verdict"], "measured-only");
  EXPECT_EQ(h["runs"][0]["suite"], "archive-quick");
  // The tags are a list of {key, value} in their order (a key given twice is kept twice).
  auto has_lot = [](const Json& run) {
    for (const auto& t : run["tags"])
      if (t["key"] == "lot") return true;
    return false;
  };
  EXPECT_EQ(has_lot(h["runs"][0]) + has_lot(h["runs"][1]), 1) << "one run has lot=L23";
  EXPECT_EQ(storqual({"history", "--tag", "lot=L23", "--csv"}).out.find("archive-quick") ==
                std::string::npos,
            false);
  // The run's own JSON is the record's: importing it records nothing new.
  const auto again =
      storqual({"archive", "import", (q.dir / "r1" / "storqual-result.json").string()});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already record 1"), std::string::npos) << again.out;
  const auto off = storqual({"history", "--tag", "po=4711", "--archive", "off"});
  EXPECT_EQ(off.exit_code, 2) << off.out;

  // The export of the order: results, reports, the suite, the chain's links and a manifest that
  // sha256sum checks.
  const fs::path out = q.dir / "export";
  const auto exported = storqual({"archive", "export", "--tag", "po=4711", "--out", out.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.out << exported.err;
  EXPECT_NE(exported.out.find("exported 2 records"), std::string::npos) << exported.out;
  const auto check =
      run_shell("cd '" + out.string() + "' && sha256sum -c --strict MANIFEST.sha256");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(count(read_file(out / "chain.jsonl"), "\n"), 2u);
  EXPECT_TRUE(fs::exists(out / "reports" / "1" / "storqual-report.html"));
  EXPECT_EQ(
      read_file(out / "results" / (h["runs"][0]["result_sha256"].get<std::string>() + ".json")),
      read_file(q.dir / (has_lot(h["runs"][0]) ? "r1" : "r2") / "storqual-result.json"));
  EXPECT_GE(count(read_file(out / "MANIFEST.sha256"), "  suites/"), 1u) << "the suite file";
  // The export proves its records from its own files (issue 44): manifest, links, content hashes.
  const auto proved = storqual({"archive", "verify-export", out.string()});
  EXPECT_EQ(proved.exit_code, 0) << proved.out << proved.err;
  EXPECT_NE(proved.out.find("2 records"), std::string::npos) << proved.out;
  EXPECT_EQ(storqual({"archive", "export", "--tag", "po=4711", "--out", out.string()}).exit_code, 2)
      << "an export does not write into a folder that is not empty";

  // Must-show 2 of issue 29: an edited figure in a copy of the archive, named by verify.
  STORQUAL_REQUIRE(storqual::testing::have_program("sqlite3"), "sqlite3 (apt-get install sqlite3)");
  fs::copy_file(archive, q.dir / "edited.sqlite");
  const auto edit = run_shell("sqlite3 '" + (q.dir / "edited.sqlite").string() +
                              "' \"UPDATE figure SET value = value * 1.5 WHERE record_seq = 2 AND "
                              "name = 'iops'\"");
  ASSERT_EQ(edit.exit_code, 0) << edit.err;
  const auto edited =
      storqual({"archive", "verify", "--archive", (q.dir / "edited.sqlite").string()});
  EXPECT_EQ(edited.exit_code, 1) << edited.out << edited.err;
  EXPECT_NE(edited.out.find("the chain is broken: record 2 was edited"), std::string::npos)
      << edited.out;
  unsetenv("STORQUAL_ARCHIVE");
}

// `storqual report` records a merge (not a re-render of one result), `bench --json` its result.
TEST(ArchiveRun, AReportMergeAndABenchAreRecorded) {
  QuickRun q;
  const std::string archive = (q.dir / "merge.sqlite").string();
  for (const char* out : {"a", "b"}) {
    const auto r = q.run(out, {"--archive", "off"});
    ASSERT_LE(r.exit_code, 1) << r.err;
  }
  const std::string a = (q.dir / "a" / "storqual-result.json").string();
  const std::string b = (q.dir / "b" / "storqual-result.json").string();
  const auto one = storqual({"report", a, "--archive", archive});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_FALSE(fs::exists(archive)) << "a re-render records nothing";
  const auto merged = storqual({"report", a, b, "--json", (q.dir / "fleet.json").string(),
                                "--archive", archive, "--tag", "merge=1"});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(count(merged.err, "archive: recorded as record"), 2u) << merged.err;
  write_random_file(q.dir / "bench.img", 1 << 20);
  const auto bench =
      storqual({"bench", "--target", (q.dir / "bench.img").string(), "--rw", "randread", "--bs",
                "4k", "--runtime", "100ms", "--json", (q.dir / "bench.json").string(), "--archive",
                archive, "--tag", "bench=1"});
  EXPECT_EQ(bench.exit_code, 0) << bench.out << bench.err;
  EXPECT_NE(bench.err.find("archive: recorded as record 3"), std::string::npos) << bench.err;
  const auto verify = storqual({"archive", "verify", "--archive", archive});
  EXPECT_NE(verify.out.find("3 records, the chain is whole"), std::string::npos) << verify.out;
  const auto h = storqual({"history", "--tag", "merge=1", "--json", "--archive", archive});
  EXPECT_EQ(Json::parse(h.out)["runs"].size(), 2u) << h.out << h.err;
}

TEST(ArchiveRun, ACorruptFileCostsTheRunNothingAndTheImportRecordsIt) {
  QuickRun q;
  const fs::path corrupt = q.dir / "corrupt.sqlite";
  std::string garbage(4096, '\x5a');
  write_text(corrupt, garbage);
  const auto plain = q.run("plain", {"--archive", "off"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto run = q.run("r", {"--archive", corrupt.string()});
  EXPECT_EQ(run.exit_code, plain.exit_code) << run.out << run.err;
  EXPECT_TRUE(fs::exists(q.dir / "r" / "storqual-result.json"));
  EXPECT_TRUE(fs::exists(q.dir / "r" / "storqual-junit.xml"));
  EXPECT_TRUE(fs::exists(q.dir / "r" / "storqual-report.html"));
  EXPECT_NE(run.err.find("could not record the run in " + corrupt.string()), std::string::npos)
      << run.err;
  const std::string json = (q.dir / "r" / "storqual-result.json").string();
  EXPECT_NE(run.err.find("storqual archive import " + json + " --archive " + corrupt.string()),
            std::string::npos)
      << run.err;
  EXPECT_EQ(read_file(corrupt), garbage) << "a corrupt archive is never overwritten";
  // Recorded later, into a good archive: once.
  const std::string good = (q.dir / "good.sqlite").string();
  const auto imported = storqual({"archive", "import", json, "--archive", good});
  EXPECT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_NE(imported.out.find("1 of 1 results recorded"), std::string::npos) << imported.out;
  const auto twice = storqual({"archive", "import", json, "--archive", good});
  EXPECT_NE(twice.out.find("0 of 1 results recorded, 1 already there"), std::string::npos)
      << twice.out;
  EXPECT_EQ(storqual({"archive", "verify", "--archive", good}).exit_code, 0);
  const auto verify_corrupt = storqual({"archive", "verify", "--archive", corrupt.string()});
  EXPECT_EQ(verify_corrupt.exit_code, 3) << verify_corrupt.out << verify_corrupt.err;
  EXPECT_EQ(read_file(corrupt), garbage);
}

TEST(ArchiveRun, AStoppedServerCostsTheRunNothingAndTheImportRecordsIt) {
  std::string why;
  auto server = PostgresServer::start(why);
  if (!server) GTEST_FAIL() << "cannot run: no PostgreSQL server for the test: " << why;
  const std::string uri = server->create_database("stopped");
  server->stop();
  QuickRun q;
  const auto run = q.run("r", {"--archive", uri});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(fs::exists(q.dir / "r" / "storqual-result.json"));
  EXPECT_NE(run.err.find("could not record the run in " + uri), std::string::npos) << run.err;
  ASSERT_TRUE(server->resume());
  const std::string json = (q.dir / "r" / "storqual-result.json").string();
  const auto imported =
      storqual({"archive", "import", json, "--archive", uri, "--tag", "late=yes"});
  EXPECT_EQ(imported.exit_code, 0) << imported.out << imported.err;
  const auto history = storqual({"history", "--tag", "late=yes", "--archive", uri, "--json"});
  EXPECT_EQ(Json::parse(history.out)["runs"].size(), 1u) << history.out << history.err;
}

// Issue 44: a run that finds the PostgreSQL writer lock held waits for it a bounded time (60 s
// unless STORQUAL_ARCHIVE_LOCK_WAIT says; here 4 s, so that the test does not wait out the
// default), and a SIGTERM during the wait (the default's) ends the wait at once; either way its
// reports are written and the command that records it later is printed.
TEST(ArchiveRun, AHeldWriterLockIsWaitedForBoundedlyAndSigtermEndsTheWait) {
  std::string why;
  auto server = PostgresServer::shared(why);
  if (!server) GTEST_FAIL() << "cannot run: no PostgreSQL server for the test: " << why;
  const std::string uri = server->create_database("locked");
  QuickRun q;
  ASSERT_EQ(q.run("first", {"--archive", uri}).exit_code, 0) << "made the archive";
  auto holder = reporting::open_postgresql(uri, reporting::ArchiveAccess::Record);
  holder->begin_write();  // pg_advisory_xact_lock(290029) until the rollback
  using Clock = std::chrono::steady_clock;
  {
    std::vector<std::string> argv = q.args("term");
    argv.insert(argv.begin(), STORQUAL_BINARY);
    argv.insert(argv.end(), {"--archive", uri});
    testing::BackgroundCommand run(argv, q.dir / "term.out", q.dir / "term.err");
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (!fs::exists(q.dir / "term" / "storqual-report.html") && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // waiting for the lock now
    const auto sent = Clock::now();
    run.signal(SIGTERM);
    (void)run.wait();
    EXPECT_LT(Clock::now() - sent, std::chrono::seconds(2));
    const std::string err = read_file(q.dir / "term.err");
    EXPECT_NE(err.find("interrupted while waiting for the archive's writer lock"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("record it later with: storqual archive import"), std::string::npos) << err;
    EXPECT_TRUE(fs::exists(q.dir / "term" / "storqual-result.json"));
  }
  ASSERT_EQ(setenv("STORQUAL_ARCHIVE_LOCK_WAIT", "4", 1), 0);
  const auto start = Clock::now();
  const auto bounded = q.run("bounded", {"--archive", uri});
  const auto waited = Clock::now() - start;
  unsetenv("STORQUAL_ARCHIVE_LOCK_WAIT");
  EXPECT_LT(waited, std::chrono::seconds(14));
  EXPECT_GE(waited, std::chrono::seconds(4));
  EXPECT_NE(bounded.err.find("held by another writer for longer than 4 s"), std::string::npos)
      << bounded.err;
  EXPECT_TRUE(fs::exists(q.dir / "bounded" / "storqual-result.json"));
  holder->rollback();
}

// The bound is 60 s unless STORQUAL_ARCHIVE_LOCK_WAIT says, and a value that is not a whole number
// of seconds from 1 to 3600 is refused, naming the variable, before a run measures anything.
TEST(ArchiveRun, TheLockWaitIsSixtySecondsUnlessTheEnvironmentSays) {
  unsetenv("STORQUAL_ARCHIVE_LOCK_WAIT");
  EXPECT_EQ(reporting::archive_lock_wait_s(), 60);
  ASSERT_EQ(setenv("STORQUAL_ARCHIVE_LOCK_WAIT", "", 1), 0);
  EXPECT_EQ(reporting::archive_lock_wait_s(), 60);
  ASSERT_EQ(setenv("STORQUAL_ARCHIVE_LOCK_WAIT", "3600", 1), 0);
  EXPECT_EQ(reporting::archive_lock_wait_s(), 3600);
  for (const char* bad : {"0", "3601", "-5", "5s", "1.5", " 5", "x"}) {
    ASSERT_EQ(setenv("STORQUAL_ARCHIVE_LOCK_WAIT", bad, 1), 0);
    EXPECT_THROW((void)reporting::archive_lock_wait_s(), UsageError) << bad;
  }
  QuickRun q;
  ASSERT_EQ(setenv("STORQUAL_ARCHIVE_LOCK_WAIT", "5s", 1), 0);
  const auto refused = q.run("bad", {"--archive", (q.dir / "a.sqlite").string()});
  const auto off = q.run("off", {"--archive", "off"});
  unsetenv("STORQUAL_ARCHIVE_LOCK_WAIT");
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("STORQUAL_ARCHIVE_LOCK_WAIT: '5s' is not a whole number of seconds"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(q.dir / "bad" / "storqual-result.json")) << "it measured first";
  EXPECT_EQ(off.exit_code, 0) << "the archive off, the variable is not read\n" << off.err;
}

// A run interrupted while it measures (SIGINT) still records its interrupted result: the stop
// flag set before the record does not cut its lock wait short (the wait is for a signal during it).
TEST(ArchiveRun, ARunInterruptedWhileItMeasuresStillRecords) {
  std::string why;
  auto server = PostgresServer::shared(why);
  if (!server) GTEST_FAIL() << "cannot run: no PostgreSQL server for the test: " << why;
  const std::string uri = server->create_database("interrupted");
  QuickRun q;
  std::string slow = kQuickSuite;
  const std::string quick_runtime = "runtime=\"100ms\"";
  slow.replace(slow.find(quick_runtime), quick_runtime.size(), "runtime=\"20s\"");
  write_text(q.dir / "slow.xml", slow);
  std::vector<std::string> argv = q.args("int");
  argv[4] = (q.dir / "slow.xml").string();
  argv.insert(argv.begin(), STORQUAL_BINARY);
  argv.insert(argv.end(), {"--archive", uri});
  testing::BackgroundCommand run(argv, q.dir / "int.out", q.dir / "int.err");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  run.signal(SIGINT);
  EXPECT_EQ(run.wait(), 130) << read_file(q.dir / "int.err");
  const std::string out = read_file(q.dir / "int.out");
  EXPECT_NE(out.find("archive: recorded as record 1"), std::string::npos)
      << out << read_file(q.dir / "int.err");
}

// The same on SQLite: a writer holds the file's write lock; SIGTERM ends the busy wait at once,
// and without it the wait ends after the bound.
TEST(ArchiveRun, SigtermEndsTheWaitForASqliteWriterLock) {
  QuickRun q;
  const std::string archive = (q.dir / "locked.sqlite").string();
  ASSERT_EQ(q.run("first", {"--archive", archive}).exit_code, 0) << "made the archive";
  auto holder = reporting::open_sqlite(archive, reporting::ArchiveAccess::Record);
  holder->begin_write();  // BEGIN IMMEDIATE: the write lock until the rollback
  std::vector<std::string> argv = q.args("term");
  argv.insert(argv.begin(), STORQUAL_BINARY);
  argv.insert(argv.end(), {"--archive", archive});
  testing::BackgroundCommand run(argv, q.dir / "term.out", q.dir / "term.err");
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!fs::exists(q.dir / "term" / "storqual-report.html") && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto sent = Clock::now();
  run.signal(SIGTERM);
  (void)run.wait();
  EXPECT_LT(Clock::now() - sent, std::chrono::seconds(2));
  const std::string err = read_file(q.dir / "term.err");
  EXPECT_NE(err.find("interrupted while waiting for the archive's writer lock"), std::string::npos)
      << err;
  EXPECT_TRUE(fs::exists(q.dir / "term" / "storqual-result.json"));
  // Without a signal the busy wait ends after STORQUAL_ARCHIVE_LOCK_WAIT (the default is 60 s).
  ASSERT_EQ(setenv("STORQUAL_ARCHIVE_LOCK_WAIT", "2", 1), 0);
  const auto start = Clock::now();
  const auto bounded = q.run("bounded", {"--archive", archive});
  const auto waited = Clock::now() - start;
  unsetenv("STORQUAL_ARCHIVE_LOCK_WAIT");
  EXPECT_GE(waited, std::chrono::seconds(2));
  EXPECT_LT(waited, std::chrono::seconds(12));
  EXPECT_NE(bounded.err.find("record it later with: storqual archive import"), std::string::npos)
      << bounded.err;
  EXPECT_TRUE(fs::exists(q.dir / "bounded" / "storqual-result.json"));
  holder->rollback();
}

TEST(ArchiveRun, BadOptionsAreNamedAndAPasswordIsNeverRepeated) {
  QuickRun q;
  const auto tag = q.run("r", {"--tag", "=4711", "--archive", "off"});
  EXPECT_EQ(tag.exit_code, 2);
  EXPECT_NE(tag.err.find("--tag: '=4711' is not K=V"), std::string::npos) << tag.err;
  const auto secret = q.run("r", {"--archive", "postgresql://lab:hunter2@db.example/archive"});
  EXPECT_EQ(secret.exit_code, 2);
  EXPECT_NE(secret.err.find("--archive: the PostgreSQL connection string holds a password"),
            std::string::npos)
      << secret.err;
  EXPECT_EQ((secret.out + secret.err).find("hunter2"), std::string::npos);
  // A libpq key=value string is a connection string, not a file name (issue 44).
  const auto kv = q.run("r", {"--archive", "dbname=lab password=s3cret"});
  EXPECT_EQ(kv.exit_code, 2) << kv.out << kv.err;
  EXPECT_EQ((kv.out + kv.err).find("s3cret"), std::string::npos) << kv.out << kv.err;
  EXPECT_FALSE(fs::exists(q.dir / "r" / "storqual-result.json")) << "it ran";
  const auto env =
      run_shell("STORQUAL_ARCHIVE=ftp://x " + std::string(STORQUAL_BINARY) + " history --serial S");
  EXPECT_EQ(env.exit_code, 2);
  EXPECT_NE(env.err.find("STORQUAL_ARCHIVE: 'ftp://' is not an archive"), std::string::npos)
      << env.err;
  const auto date = storqual({"history", "--serial", "S", "--since", "yesterday", "--archive",
                              (q.dir / "a.sqlite").string()});
  EXPECT_EQ(date.exit_code, 2);
  EXPECT_NE(date.err.find("--since: 'yesterday' is not a date"), std::string::npos) << date.err;
}

// A kill -9 while recording leaves a consistent archive: every record whole, the chain whole, and
// the import run again records the rest once.
TEST(ArchiveRun, AKillDuringImportLeavesAWholeChain) {
  QuickRun q;
  const auto run = q.run("r", {"--archive", "off"});
  ASSERT_LE(run.exit_code, 1) << run.err;
  Json result = Json::parse(read_file(q.dir / "r" / "storqual-result.json"));
  Json fleet = {{"fleet", Json::array()}};
  for (int i = 0; i < 1000; ++i) {
    result["environment"]["start_utc"] = "2026-01-01T00:00:00Z#" + std::to_string(i);
    fleet["fleet"].push_back(result);
  }
  write_text(q.dir / "fleet.json", fleet.dump());
  const std::string archive = (q.dir / "killed.sqlite").string();
  {
    testing::BackgroundCommand import({STORQUAL_BINARY, "archive", "import",
                                       (q.dir / "fleet.json").string(), "--archive", archive},
                                      q.dir / "import.out", q.dir / "import.err");
    // Until some records are in, then in the middle of the next one.
    for (int i = 0; i < 600 && count(read_file(q.dir / "import.out"), "recorded as") < 20; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    import.signal(SIGKILL);
    EXPECT_EQ(import.wait(), 128 + SIGKILL);
  }
  const auto verify = storqual({"archive", "verify", "--archive", archive});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("the chain is whole"), std::string::npos) << verify.out;
  EXPECT_EQ(verify.out.find("1000 records"), std::string::npos) << "killed before the end";
  const auto again =
      storqual({"archive", "import", (q.dir / "fleet.json").string(), "--archive", archive});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already there"), std::string::npos)
      << again.out.substr(again.out.size() - 200);
  const auto whole = storqual({"archive", "verify", "--archive", archive});
  EXPECT_NE(whole.out.find("1000 records, the chain is whole"), std::string::npos) << whole.out;
}

// Issue 29, drift as a verdict: a unit (an NVMe identity from captured pages, so that it has a
// serial) accepted on a target rated at 4000 IOPS, then qualified again at 2000 IOPS (the same
// workload, rate-limited): with early-stop intervals on both runs the re-test carries a failing
// "baseline" verdict against its acceptance record in its JSON, JUnit and HTML, and exits 1; a
// third run at full speed passes its drift verdict; --baseline FILE wins over the archive; and
// with the archive off there is no drift verdict.
std::string drift_suite(int rate) {
  return "<suite name=\"drift\" description=\"one rated read, early stop\">\n"
         "  <defaults direct=\"0\" runtime=\"3s\" ramp_time=\"0s\" size=\"1m\" numjobs=\"1\" "
         "early_stop=\"ci:2%@95,min=1s\"/>\n"
         "  <workload id=\"drift-read\" rw=\"randread\" bs=\"4k\" iodepth=\"1\" rate_iops=\"" +
         std::to_string(rate) + "\"/>\n</suite>\n";
}

const Json* drift_verdict(const Json& result, const std::string& metric) {
  for (const auto& v : result["verdicts"])
    if (v.value("kind", "") == "baseline" && v.value("metric", "") == metric) return &v;
  return nullptr;
}

TEST(ArchiveRun, ARetestOnASlowerTargetCarriesTheDriftVerdict) {
  QuickRun q;
  const fs::path pages = q.dir / "pages";
  fs::create_directories(pages);
  const fs::path data = STORQUAL_TEST_DATA;
  for (const char* f : {"identify-ctrl.bin", "identify-ns.bin"})
    fs::copy_file(data / "nvme" / f, pages / f);
  fs::copy_file(data / "nvme" / "smart-before.bin", pages / "smart-before.bin");
  fs::copy_file(data / "nvme" / "smart-before.bin", pages / "smart-after.bin");
  write_text(q.dir / "fast.xml", drift_suite(4000));
  write_text(q.dir / "slow.xml", drift_suite(2000));
  write_text(q.dir / "sheet.xml",
             "<spec-sheet name=\"drift\" suite=\"fast.xml\">\n  <match model=\"*\"/>\n  <claims>\n"
             "    <claim workload=\"drift-read\" metric=\"iops\" value=\"1000\"/>\n  </claims>\n"
             "</spec-sheet>\n");
  const std::string archive = (q.dir / "drift.sqlite").string();
  auto qualify = [&](const std::string& suite, const std::string& out,
                     std::vector<std::string> more) {
    std::vector<std::string> a = {"run",
                                  "--target",
                                  (q.dir / "target").string(),
                                  "--suite",
                                  (q.dir / suite).string(),
                                  "--spec",
                                  (q.dir / "sheet.xml").string(),
                                  "--ioengine",
                                  "null",
                                  "--nvme-capture",
                                  pages.string(),
                                  "--thermal-interval",
                                  "0",
                                  "--out",
                                  (q.dir / out).string()};
    a.insert(a.end(), more.begin(), more.end());
    return storqual(a);
  };
  const auto accepted = qualify("fast.xml", "accept", {"--archive", archive});
  ASSERT_EQ(accepted.exit_code, 0) << accepted.out << accepted.err;
  const Json first = Json::parse(read_file(q.dir / "accept" / "storqual-result.json"));
  EXPECT_EQ(drift_verdict(first, "iops"), nullptr) << "nothing to drift from yet";

  const auto slow = qualify("slow.xml", "slow", {"--archive", archive});
  EXPECT_EQ(slow.exit_code, 1) << slow.out << slow.err;
  const Json second = Json::parse(read_file(q.dir / "slow" / "storqual-result.json"));
  const Json* v = drift_verdict(second, "iops");
  ASSERT_NE(v, nullptr) << second["verdicts"].dump(1);
  EXPECT_EQ((*v)["status"], "fail") << (*v)["message"];
  const std::string message = (*v)["message"];
  EXPECT_NE(message.find("drift against its acceptance record 1 "), std::string::npos) << message;
  EXPECT_NE(message.find("separate, DRIFT (slower than at acceptance)"), std::string::npos)
      << message;
  EXPECT_NEAR((*v)["measured"].get<double>() / (*v)["claimed"].get<double>(), 0.5, 0.1);
  // The claim itself (1000 IOPS) still passed: the drift alone fails the run.
  for (const auto& c : second["verdicts"])
    if (c.value("kind", "claim") == "claim") {
      EXPECT_EQ(c["status"], "pass") << c.dump();
    }
  const std::string junit = read_file(q.dir / "slow" / "storqual-junit.xml");
  EXPECT_NE(junit.find("baseline-regression"), std::string::npos);
  EXPECT_NE(junit.find("drift against its acceptance record 1"), std::string::npos);
  const std::string html = read_file(q.dir / "slow" / "storqual-report.html");
  EXPECT_NE(html.find("drift against its acceptance record 1"), std::string::npos);

  // Back at full speed: judged against the acceptance (record 1), not the slow run; it passes.
  const auto back = qualify("fast.xml", "back", {"--archive", archive});
  EXPECT_EQ(back.exit_code, 0) << back.out << back.err;
  const Json third = Json::parse(read_file(q.dir / "back" / "storqual-result.json"));
  ASSERT_NE(drift_verdict(third, "iops"), nullptr);
  EXPECT_EQ((*drift_verdict(third, "iops"))["status"], "pass")
      << (*drift_verdict(third, "iops"))["message"];

  // An explicit --baseline wins: its verdicts, no drift ones.
  const auto explicit_baseline =
      qualify("slow.xml", "explicit",
              {"--archive", archive, "--baseline",
               (q.dir / "accept" / "storqual-result.json").string(), "--regression", "90%",
               // The check before the run sees the file's own disk, not the captured pages.
               "--baseline-any-model"});
  EXPECT_EQ(explicit_baseline.exit_code, 0) << explicit_baseline.out << explicit_baseline.err;
  const Json fourth = Json::parse(read_file(q.dir / "explicit" / "storqual-result.json"));
  for (const auto& b : fourth["verdicts"])
    if (b.value("kind", "") == "baseline") {
      EXPECT_EQ(b["message"].get<std::string>().find("drift"), std::string::npos) << b.dump();
    }
  ASSERT_NE(drift_verdict(fourth, "iops"), nullptr);
  EXPECT_EQ((*drift_verdict(fourth, "iops"))["status"], "pass");

  // With the archive off: no acceptance, no drift verdict.
  const auto off = qualify("slow.xml", "off", {"--archive", "off"});
  EXPECT_EQ(off.exit_code, 0) << off.out << off.err;
  const Json fifth = Json::parse(read_file(q.dir / "off" / "storqual-result.json"));
  EXPECT_EQ(drift_verdict(fifth, "iops"), nullptr);
}

// Must-show 1 of issue 29: 8 processes x N runs, each run recorded into one SQLite file (by the
// run itself) and into one PostgreSQL database (`archive import` of its result right after), all
// eight at once: both archives then hold the same 8 x N results. N is 10 in `make test` (eight
// writers contend for the lock all along, and all eight make the archive at once at the start,
// where the one-snapshot check of check_archive_to_record matters) and 50, issue 29's figure, in
// `make archive-writers` (STORQUAL_TEST_WRITER_RUNS=50).
int runs_per_writer() {
  const char* env = std::getenv("STORQUAL_TEST_WRITER_RUNS");
  const int n = env && *env ? std::atoi(env) : 10;
  if (n < 2 || n > 1000)
    throw std::runtime_error("STORQUAL_TEST_WRITER_RUNS: '" + std::string(env) +
                             "' is not a number of runs from 2 to 1000");
  return n;
}

void eight_writers(const QuickRun& q, const std::string& sqlite, const std::string& pg, int runs) {
  std::vector<std::unique_ptr<testing::BackgroundCommand>> writers;
  const std::string bin = "'" + std::string(STORQUAL_BINARY) + "'";
  for (int p = 0; p < 8; ++p) {
    // Each writer its own target (eight units) and its own folder of runs.
    const fs::path mine = q.dir / ("p" + std::to_string(p));
    fs::create_directories(mine / "target");
    const std::string out = mine.string() + "/$i";
    const std::string tags = " --tag writer=" + std::to_string(p) + " --tag must-show=1";
    // A run's exit (0 pass, 1 fail, 3 incomplete: a 100 ms read on a loaded host may stall) is
    // the run's and recorded with it; anything else, or an import that fails, stops the writer.
    const std::string loop =
        "for i in $(seq 1 " + std::to_string(runs) + "); do " + bin + " run --target '" +
        (mine / "target").string() + "' --suite '" + (q.dir / "quick.xml").string() + "' --out \"" +
        out + "\" --archive '" + sqlite + "'" + tags + " >\"" + out +
        ".log\" 2>&1; [ $? -le 3 ] || exit 1; " + bin + " archive import \"" + out +
        "/storqual-result.json\" --archive '" + pg + "'" + tags + " >/dev/null || exit 2; done";
    writers.push_back(std::make_unique<testing::BackgroundCommand>(
        std::vector<std::string>{"/bin/sh", "-c", loop}, q.dir / ("w" + std::to_string(p) + ".out"),
        q.dir / ("w" + std::to_string(p) + ".err")));
  }
  for (int p = 0; p < 8; ++p)
    EXPECT_EQ(writers[p]->wait(), 0) << read_file(q.dir / ("w" + std::to_string(p) + ".err"));
}

TEST(ArchiveRun, EightProcessesOfManyRunsIntoSqliteAndPostgresql) {
  std::string why;
  auto server = PostgresServer::shared(why);
  if (!server) GTEST_FAIL() << "cannot run: no PostgreSQL server for the test: " << why;
  QuickRun q;
  const std::string sqlite = (q.dir / "shared.sqlite").string();
  const std::string pg = server->create_database("shared");
  const int runs = runs_per_writer();
  const std::size_t total = 8u * static_cast<std::size_t>(runs);
  const auto start = std::chrono::steady_clock::now();
  eight_writers(q, sqlite, pg, runs);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("8 x %d runs, each recorded into SQLite and PostgreSQL: %.1f s\n", runs, seconds);
  std::string history[2];
  int i = 0;
  for (const std::string& archive : {sqlite, pg}) {
    const auto verify = storqual({"archive", "verify", "--archive", archive});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_NE(verify.out.find(std::to_string(total) + " records, the chain is whole"),
              std::string::npos)
        << verify.out;
    const auto h = storqual({"history", "--tag", "must-show=1", "--json", "--archive", archive});
    ASSERT_EQ(h.exit_code, 0) << h.err;
    EXPECT_EQ(Json::parse(h.out)["runs"].size(), total);
    history[i++] = h.out;
    for (int p = 0; p < 8; ++p) {
      const auto w = storqual(
          {"history", "--tag", "writer=" + std::to_string(p), "--json", "--archive", archive});
      EXPECT_EQ(Json::parse(w.out)["runs"].size(), static_cast<std::size_t>(runs))
          << archive << " writer " << p;
    }
  }
  EXPECT_EQ(history[0], history[1]) << "the history of the same runs differs between the engines";
  const std::size_t measured_only = count(history[0], "\"verdict\": \"measured-only\"");
  std::printf("%zu of %zu runs measured only\n", measured_only, total);
  if (measured_only != total)
    std::printf("one that was not:\n%s\n",
                run_shell("grep -L 'RESULT: MEASURED ONLY' " + q.dir.path().string() +
                          "/p*/*.log | head -1 | xargs -r tail -25")
                    .out.c_str());
}

}  // namespace
}  // namespace storqual
