// SPDX-License-Identifier: Apache-2.0
// One contract, every archive engine (archive/archive.hpp, docs/archive.md): the same
// tests against an SQLite file and a PostgreSQL 15 server the suite starts itself (initdb and
// pg_ctl as `nobody`, a Unix socket in a temporary directory, no TCP), each test in an archive of
// its own. The PostgreSQL half skips with the reason when the server binaries are absent.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "archive/archive.hpp"
#include "archive/archive_rows.hpp"
#include "archive/archive_schema.hpp"
#include "archive/archive_store.hpp"
#include "archive/audit_report.hpp"
#include "archive/history_format.hpp"
#include "archive/record_signature.hpp"
#include "reporting/result_json.hpp"
#include "tests/support/postgres_server.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using testing::PostgresServer;
using testing::ScratchDir;

struct SqliteEngine {
  static void set_up() {}
  static void tear_down() {}
  static std::optional<std::string> skip_reason() { return std::nullopt; }
  ArchiveLocation fresh(const std::string& name) {
    return parse_archive_location((dir / (name + ".sqlite")).string(), "test");
  }
  ScratchDir dir{"storqual-archive"};
};

struct PostgresEngine {
  static inline std::unique_ptr<PostgresServer> server;
  static inline std::string why_not;
  static inline std::atomic<int> databases{0};
  static void set_up() {
    if (!server && why_not.empty()) server = PostgresServer::shared(why_not);
  }
  static void tear_down() { server.reset(); }
  static std::optional<std::string> skip_reason() {
    if (server) return std::nullopt;
    return "no PostgreSQL server for the test: " + why_not;
  }
  ArchiveLocation fresh(const std::string&) {
    const std::string uri = server->create_database("archive_" + std::to_string(++databases));
    return parse_archive_location(uri, "test");
  }
};

// The sample run as unit `serial` of `model`, started at second `second` of the sample's minute.
RunResult unit_run(const std::string& serial, int second,
                   const std::string& model = "Example SSD 500GB") {
  RunResult r = sample::run(false);
  for (auto& row : r.device.identity) {
    if (row.field == "serial") row.value = serial;
    if (row.field == "model") row.value = model;
  }
  char start[32];
  std::snprintf(start, sizeof start, "2026-11-29T18:%02d:%02dZ", second / 60, second % 60);
  r.environment.start_utc = start;
  return r;
}

HistoryQuery by_serial(const std::string& serial) {
  HistoryQuery q;
  q.serial = serial;
  return q;
}
HistoryQuery by_tag(const std::string& key, const std::string& value) {
  HistoryQuery q;
  q.tags = {{key, value}};
  return q;
}

RecordOutcome record(Archive& a, const RunResult& r, const std::vector<ArchiveTag>& tags = {}) {
  return a.record(r, to_json_text(r), {}, tags);
}

template <class Engine>
class ArchiveConformance : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { Engine::set_up(); }
  static void TearDownTestSuite() { Engine::tear_down(); }
  void SetUp() override {
    if (auto why = Engine::skip_reason()) GTEST_FAIL() << "cannot run: " << *why;
    where_ = engine_.fresh(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  std::unique_ptr<Archive> open() { return Archive::open(where_); }
  // Five runs of five units, one a second.
  std::unique_ptr<Archive> five_records() {
    auto a = open();
    for (int i = 1; i <= 5; ++i) EXPECT_EQ(record(*a, unit_run("S" + std::to_string(i), i)).seq, i);
    return a;
  }
  Engine engine_;
  ArchiveLocation where_;
};

using Engines = ::testing::Types<SqliteEngine, PostgresEngine>;
class EngineNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, SqliteEngine> ? "sqlite" : "postgresql";
  }
};
TYPED_TEST_SUITE(ArchiveConformance, Engines, EngineNames);

TYPED_TEST(ArchiveConformance, RecordsTheResultVerbatimAndItsRows) {
  auto a = this->open();
  const RunResult run = unit_run("S5X9NG0R123456", 0);
  const std::string json = to_json_text(run);
  const RecordOutcome out = a->record(run, json, {}, {{"po", "4711"}, {"lot", "L23"}});
  EXPECT_EQ(out.seq, 1);
  EXPECT_FALSE(out.already);
  EXPECT_EQ(out.result_sha256, archive_sha256_hex(json));
  EXPECT_EQ(a->result_json(out.result_sha256), json);
  EXPECT_EQ(a->record_count(), 1);
  const auto rows = a->connection().query(
      "SELECT serial, model, transport, firmware FROM device WHERE record_seq = 1", {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (SqlRow{std::string("S5X9NG0R123456"), std::string("Example SSD 500GB"),
                             std::string("sata"), std::string("RVT04B6Q")}));
  const auto figures = a->connection().query(
      "SELECT value, samples FROM figure WHERE record_seq = 1 AND workload = $1 AND name = $2",
      {std::string("randread-4k-qd32"), std::string("read.iops")});
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_EQ(std::get<double>(figures[0][0]), 98400);
  const auto verdicts =
      a->connection().query("SELECT count(*) FROM verdict WHERE record_seq = 1", {});
  EXPECT_EQ(std::get<std::int64_t>(verdicts[0][0]), 4);
  const auto health = a->connection().query(
      "SELECT phase, value FROM health WHERE record_seq = 1 AND field = 'temperature_c' ORDER BY "
      "idx",
      {});
  ASSERT_EQ(health.size(), 2u);
  EXPECT_EQ(health[1], (SqlRow{std::string("after"), std::string("41")}));
  // The dashboards' views read the same rows.
  const auto view = a->connection().query("SELECT serial, verdict FROM v_runs", {});
  ASSERT_EQ(view.size(), 1u);
  EXPECT_EQ(view[0], (SqlRow{std::string("S5X9NG0R123456"), std::string("pass")}));
  const auto schema = a->connection().query("SELECT max(version) FROM schema_version", {});
  EXPECT_EQ(std::get<std::int64_t>(schema[0][0]), kArchiveSchemaVersion);
}

TYPED_TEST(ArchiveConformance, TheSameResultTwiceIsRecordedOnce) {
  auto a = this->open();
  const RunResult run = unit_run("S1", 1);
  EXPECT_FALSE(record(*a, run).already);
  const RecordOutcome again = record(*a, run);
  EXPECT_TRUE(again.already);
  EXPECT_EQ(again.seq, 1);
  EXPECT_EQ(a->record_count(), 1);
  // A re-test is a new record beside the old.
  EXPECT_EQ(record(*a, unit_run("S1", 2)).seq, 2);
}

TYPED_TEST(ArchiveConformance, AWholeChainVerifies) {
  auto a = this->five_records();
  const ChainCheck c = a->verify();
  EXPECT_EQ(c.records, 5);
  EXPECT_FALSE(c.problem) << *c.problem;
  EXPECT_EQ(c.head_hash.size(), 64u);
}

TYPED_TEST(ArchiveConformance, VerifyNamesAnEditedFigure) {
  auto a = this->five_records();
  a->connection().execute_script(
      "UPDATE figure SET value = value * 2 WHERE record_seq = 3 AND name = 'read.iops'");
  const ChainCheck c = a->verify();
  ASSERT_TRUE(c.problem);
  EXPECT_EQ(*c.problem, "record 3 was edited: its rows no longer match its hash");
}

TYPED_TEST(ArchiveConformance, VerifyNamesAnEditedResultJson) {
  auto a = this->five_records();
  const auto sha = a->connection().query("SELECT result_sha256 FROM record WHERE seq = 4", {});
  a->connection().query("UPDATE result_json SET content = content || ' ' WHERE sha256 = $1",
                        {sha[0][0]});
  const ChainCheck c = a->verify();
  ASSERT_TRUE(c.problem);
  EXPECT_NE(c.problem->find("record 4 was edited: its result JSON"), std::string::npos)
      << *c.problem;
}

TYPED_TEST(ArchiveConformance, VerifyNamesARemovedRecord) {
  auto a = this->five_records();
  a->connection().execute_script("DELETE FROM record WHERE seq = 3");
  for (const auto& t : archive_tables())
    a->connection().execute_script("DELETE FROM " + std::string(t.name) + " WHERE record_seq = 3");
  const ChainCheck c = a->verify();
  ASSERT_TRUE(c.problem);
  EXPECT_EQ(*c.problem, "record 3 was removed: record 4 follows record 2");
}

TYPED_TEST(ArchiveConformance, VerifyNamesAnInsertedRecord) {
  auto a = this->five_records();
  SqlConnection& db = a->connection();
  // Make room at 3 (the later records move up by one) and put a forged record there, linked to
  // record 2 and with a hash of its own rows: what someone adding a unit afterwards would do.
  for (int seq = 5; seq >= 3; --seq) {
    db.query("UPDATE record SET seq = $1 WHERE seq = $2",
             {std::int64_t{seq + 1}, std::int64_t{seq}});
    for (const auto& t : archive_tables())
      db.query("UPDATE " + std::string(t.name) + " SET record_seq = $1 WHERE record_seq = $2",
               {std::int64_t{seq + 1}, std::int64_t{seq}});
  }
  const RunResult forged = unit_run("FORGED", 30);
  const std::string json = to_json_text(forged);
  const RecordHead head{3, "run", archive_sha256_hex(json), "2026-11-29T18:00:30.000000Z"};
  const std::string content =
      archive_sha256_hex(canonical_record(head, derive_record_rows(forged, {}, {})));
  const auto prev = db.query("SELECT record_hash FROM record WHERE seq = 2", {});
  const std::string prev_hash = std::get<std::string>(prev[0][0]);
  db.query("INSERT INTO result_json (sha256, content) VALUES ($1, $2)", {head.result_sha256, json});
  db.query(
      "INSERT INTO record (seq, kind, result_sha256, recorded_utc, content_sha256, prev_hash, "
      "record_hash) VALUES ($1, $2, $3, $4, $5, $6, $7)",
      {head.seq, head.kind, head.result_sha256, head.recorded_utc, content, prev_hash,
       chain_hash(prev_hash, content)});
  const ChainCheck c = a->verify();
  ASSERT_TRUE(c.problem);
  EXPECT_EQ(*c.problem, "record 3 was inserted: record 4 follows record 2 in the chain");
}

TYPED_TEST(ArchiveConformance, HistoryBySerialModelTagAndTime) {
  auto a = this->open();
  record(*a, unit_run("A1", 1), {{"po", "4711"}});
  record(*a, unit_run("B1", 2, "Other SSD"), {{"po", "4711"}, {"lot", "L2"}});
  record(*a, unit_run("A1", 3), {{"po", "4712"}});
  HistoryQuery q;
  q.serial = "A1";
  auto rows = a->history(q);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].start_utc, "2026-11-29T18:00:01Z");
  EXPECT_EQ(rows[1].start_utc, "2026-11-29T18:00:03Z");
  EXPECT_EQ(rows[0].firmware, "RVT04B6Q");
  EXPECT_EQ(rows[0].verdict, "pass");
  EXPECT_EQ(rows[0].host, "qual-host-07");
  ASSERT_FALSE(rows[0].figures.empty());
  EXPECT_EQ(rows[0].figures[0].workload, "randread-4k-qd32");
  EXPECT_EQ(rows[0].figures[0].value, 98400);
  EXPECT_EQ(rows[1].tags, (std::vector<ArchiveTag>{{"po", "4712"}}));
  q = {};
  q.model = "Other SSD";
  EXPECT_EQ(a->history(q).size(), 1u);
  q = {};
  q.tags = {{"po", "4711"}};
  EXPECT_EQ(a->history(q).size(), 2u);
  q.tags.push_back({"lot", "L2"});
  rows = a->history(q);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].serial, "B1");
  q = {};
  q.serial = "A1";
  q.since = "2026-11-29T18:00:02Z";
  EXPECT_EQ(a->history(q).size(), 1u);
  q.until = "2026-11-29T18:00:02Z";
  EXPECT_EQ(a->history(q).size(), 0u);
  const std::string csv = format_history_csv(a->history(by_serial("A1")));
  EXPECT_EQ(testing::count(csv, "\r\n"), 3u) << csv;
}

TYPED_TEST(ArchiveConformance, ManyWritersAppendOneChain) {
  constexpr int kThreads = 8, kEach = 25;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    writers.emplace_back([&, t] {
      try {
        auto a = this->open();
        for (int i = 0; i < kEach; ++i)
          record(*a, unit_run("T" + std::to_string(t), t * 100 + i),
                 {{"writer", std::to_string(t)}});
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  for (auto& w : writers) w.join();
  EXPECT_EQ(failures, 0);
  auto a = this->open();
  EXPECT_EQ(a->record_count(), kThreads * kEach);
  const ChainCheck c = a->verify();
  EXPECT_FALSE(c.problem) << *c.problem;
  EXPECT_EQ(a->history(by_tag("writer", "3")).size(), static_cast<std::size_t>(kEach));
}

TYPED_TEST(ArchiveConformance, TheStoreSavesAndLoadsThroughTheSeam) {
  ArchiveResultsStore store(this->where_, {{"po", "1"}});
  const RunResult run = unit_run("L1", 5);
  const RecordOutcome out = store.record(run, {});
  const auto back = store.load(out.result_sha256);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(to_json_text(back[0]), to_json_text(run));
  EXPECT_THROW((void)store.load(std::string(64, 'f')), ResultJsonError);
}

TYPED_TEST(ArchiveConformance, ANewerSchemaIsRefused) {
  auto a = this->open();
  a->connection().execute_script(
      "INSERT INTO schema_version (version, applied_utc, tool_version) VALUES (99, 'x', 'y')");
  a.reset();
  try {
    (void)this->open();
    FAIL() << "opened an archive of schema 99";
  } catch (const ArchiveError& e) {
    EXPECT_NE(std::string(e.what()).find("version 99, newer than this storqual's"),
              std::string::npos)
        << e.what();
  }
}

// Unit D1 at second `second` whose first workload measured `iops` with an early-stop interval of
// +-`half` IOPS.
RunResult rated(int second, double iops, double half, const std::string& firmware = "RVT04B6Q") {
  RunResult r = unit_run("D1", second);
  WorkloadResult& w = r.workloads[0];
  w.read->iops = iops;
  EarlyStopReport e;
  e.metric = "iops";
  e.samples = 20;
  e.mean = iops;
  e.half_width = half;
  w.early_stop = e;
  for (auto& row : r.device.identity)
    if (row.field == "firmware") row.value = firmware;
  return r;
}

const DriftFigure* find_figure(const DriftAgainst& a, const std::string& workload) {
  for (const auto& f : a.figures)
    if (f.workload == workload && f.name == "iops") return &f;
  return nullptr;
}

TYPED_TEST(ArchiveConformance, ARetestDriftsOnlyWhenTheIntervalsSeparate) {
  auto a = this->open();
  EXPECT_EQ(record(*a, rated(1, 98400, 500)).seq, 1);  // the acceptance
  const auto slow = record(*a, rated(2, 72000, 500));
  DriftReport d = a->drift(slow.seq);
  ASSERT_TRUE(d.acceptance);
  EXPECT_FALSE(d.last) << "the last record is the acceptance record";
  EXPECT_EQ(d.acceptance->record, 1);
  const DriftFigure* f = find_figure(*d.acceptance, "randread-4k-qd32");
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->separated);
  EXPECT_EQ(f->then, 98400);
  EXPECT_EQ(f->now, 72000);
  const DriftFigure* plain = find_figure(*d.acceptance, "seqread-1m-qd32");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->separated) << "no interval: shown, not judged";
  // Back to speed, on new firmware: no drift against the acceptance (the intervals overlap), a
  // drift against the slow last run.
  const auto back = record(*a, rated(3, 98000, 800, "NEWFW"));
  d = a->drift(back.seq);
  ASSERT_TRUE(d.acceptance && d.last);
  EXPECT_FALSE(find_figure(*d.acceptance, "randread-4k-qd32")->separated);
  EXPECT_EQ(d.last->record, 2);
  EXPECT_TRUE(find_figure(*d.last, "randread-4k-qd32")->separated);
  const std::string text = format_drift(d);
  EXPECT_NE(text.find("against its acceptance record 1"), std::string::npos) << text;
  EXPECT_NE(text.find("firmware: RVT04B6Q -> NEWFW"), std::string::npos) << text;
  EXPECT_NE(text.find("overlap, no drift"), std::string::npos) << text;
  EXPECT_NE(text.find("separate, DRIFT"), std::string::npos) << text;
  EXPECT_NE(text.find("wear: percentage_used 2 -> 2"), std::string::npos) << text;
  // Another unit has no history to drift from.
  EXPECT_EQ(format_drift(a->drift(record(*a, unit_run("OTHER", 9)).seq)), "");
}

// `archive import`'s transactions of many records: one chain in order, each result once (also
// within one batch), and a plain record() after them continues the chain.
TYPED_TEST(ArchiveConformance, ABatchIsOneChainAndRecordsEachResultOnce) {
  auto a = this->open();
  std::vector<RunResult> runs = {unit_run("B1", 1), unit_run("B2", 2), unit_run("B1", 1)};
  std::vector<std::string> texts;
  for (const auto& r : runs) texts.push_back(to_json_text(r));
  const std::vector<ArchivedFile> none;
  std::vector<Archive::RecordItem> items;
  for (std::size_t i = 0; i < runs.size(); ++i) items.push_back({&runs[i], &texts[i], &none});
  auto outs = a->record_batch(items, {{"po", "1"}});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[0].seq, 1);
  EXPECT_FALSE(outs[0].already);
  EXPECT_EQ(outs[1].seq, 2);
  EXPECT_TRUE(outs[2].already) << "the same result twice in one batch";
  EXPECT_EQ(outs[2].seq, 1);
  outs = a->record_batch(items, {});
  for (const auto& o : outs) EXPECT_TRUE(o.already);
  EXPECT_EQ(record(*a, unit_run("B3", 3)).seq, 3);
  const ChainCheck c = a->verify();
  EXPECT_FALSE(c.problem) << *c.problem;
  EXPECT_EQ(c.records, 3);
  EXPECT_EQ(a->history(by_tag("po", "1")).size(), 2u);
}

// The acceptance record a re-test is judged against (its first passing record) and a record's
// health as the audit shows it.
TYPED_TEST(ArchiveConformance, TheAcceptanceRecordAndARecordsHealth) {
  auto a = this->open();
  RunResult failed = rated(1, 50000, 500);
  failed.exit_code = 1;
  record(*a, failed);
  record(*a, rated(2, 98400, 500));
  record(*a, rated(3, 72000, 500, "NEWFW"));
  const auto accepted = a->acceptance("D1");
  ASSERT_TRUE(accepted);
  EXPECT_EQ(accepted->record, 2) << "the first record that passed, not the first";
  EXPECT_EQ(accepted->firmware, "RVT04B6Q");
  EXPECT_EQ(accepted->wear, "2");
  bool found = false;
  for (const auto& f : accepted->figures)
    if (f.workload == "randread-4k-qd32" && f.name == "iops") {
      found = true;
      EXPECT_EQ(f.value, 98400);
      ASSERT_TRUE(f.interval);
      EXPECT_EQ(f.interval->first, 97900);
      EXPECT_EQ(f.interval->second, 98900);
    }
  EXPECT_TRUE(found);
  EXPECT_FALSE(a->acceptance("NOBODY"));
  EXPECT_FALSE(a->acceptance(""));
  const RunResult sample = rated(2, 98400, 500);
  int health_verdicts = 0;
  for (const auto& v : sample.verdicts) health_verdicts += v.kind == VerdictKind::Health;
  const RecordHealth h = a->record_health(2);
  EXPECT_EQ(h.judged, health_verdicts);
  EXPECT_TRUE(h.read);
  EXPECT_EQ(h.wear, "2");
}

// The audit read from either engine: the units of a tag, their latest runs, the chain.
TYPED_TEST(ArchiveConformance, AnAuditOfATag) {
  auto a = this->open();
  record(*a, unit_run("A1", 1), {{"po", "4711"}, {"lot", "L1"}});
  record(*a, unit_run("B1", 2, "Other SSD"), {{"po", "4711"}, {"lot", "L1"}});
  record(*a, unit_run("A1", 3), {{"po", "4711"}, {"lot", "L1"}});
  record(*a, unit_run("C1", 4), {{"po", "9999"}, {"lot", "L0"}});
  HistoryQuery q;
  q.tags = {{"po", "4711"}};
  const AuditPage page = collect_audit(*a, q, "--tag po=4711", "test");
  ASSERT_EQ(page.units.size(), 2u);
  EXPECT_EQ(page.units[0].run.serial, "A1");
  EXPECT_EQ(page.units[0].run.record, 3) << "the unit's latest run";
  EXPECT_EQ(page.units[0].runs, 2);
  EXPECT_EQ(page.units[1].run.model, "Other SSD");
  EXPECT_EQ(page.selected.size(), 3u);
  ASSERT_EQ(page.models.size(), 2u);
  EXPECT_EQ(page.models[0].runs.size(), 3u) << "every run of the model, C1's too";
  EXPECT_EQ(page.chain.records, 4);
  EXPECT_FALSE(page.chain.problem);
  const std::string csv = format_audit_csv(page);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  const std::string html = format_audit_html(page);
  EXPECT_NE(html.find(page.chain.head_hash), std::string::npos);
  EXPECT_NE(html.find("lot L1 (this audit)"), std::string::npos);
  EXPECT_NE(html.find("lot L0"), std::string::npos);
  // Many earlier lots: the two latest keep their lines, the earliest are one line.
  for (int lot = 1; lot <= 5; ++lot)
    record(*a, unit_run("C" + std::to_string(lot + 1), 10 + lot),
           {{"lot", "E" + std::to_string(lot)}});
  const std::string many = format_audit_html(collect_audit(*a, q, "--tag po=4711", "test"));
  EXPECT_NE(many.find(">4 other lots<"), std::string::npos);
  EXPECT_NE(many.find(">lot E4<"), std::string::npos);
  EXPECT_NE(many.find(">lot E5<"), std::string::npos);
  EXPECT_EQ(many.find(">lot E3<"), std::string::npos);
  EXPECT_NE(many.find(">lot L1 (this audit)<"), std::string::npos);
}

// An Ed25519 key pair made with the openssl command: (private PEM, public PEM).
std::pair<std::string, std::string> key_pair(const ScratchDir& dir, const std::string& name) {
  const std::string priv = (dir / (name + ".pem")).string(), pub = (dir / (name + ".pub")).string();
  const auto made =
      testing::run_shell("openssl genpkey -algorithm ed25519 -out '" + priv +
                         "' && openssl pkey -in '" + priv + "' -pubout -out '" + pub + "'");
  EXPECT_EQ(made.exit_code, 0) << made.err;
  return {priv, pub};
}

TYPED_TEST(ArchiveConformance, SignedRecordsVerifyWithTheirKeyOnly) {
  STORQUAL_REQUIRE(storqual::testing::have_program("openssl"), "openssl (apt-get install openssl)");
  ScratchDir keys("storqual-keys");
  const auto [priv, pub] = key_pair(keys, "lab");
  const auto [other_priv, other_pub] = key_pair(keys, "other");
  auto a = this->open();
  a->sign_with(Ed25519Key::load_private(priv, "--sign-key"));
  for (int i = 1; i <= 3; ++i) record(*a, unit_run("K" + std::to_string(i), i));
  const auto lab = Ed25519Key::load_public(pub, "--public-key");
  EXPECT_FALSE(a->verify(lab.get()).problem);
  const auto other = Ed25519Key::load_public(other_pub, "--public-key");
  EXPECT_EQ(a->verify(other.get()).problem.value_or(""),
            "record 1 is not signed by the key given (" + other->key_id().substr(0, 16) + ")");
  // A signature moved to another record does not verify there.
  a->connection().execute_script(
      "UPDATE record_signature SET signature = (SELECT signature FROM record_signature WHERE "
      "record_seq = 1) WHERE record_seq = 2");
  EXPECT_EQ(a->verify(lab.get()).problem.value_or(""),
            "record 2's signature does not verify with the key given");
  // A record appended without the key: the chain is whole, the signatures are not.
  auto unsigned_writer = this->open();
  record(*unsigned_writer, unit_run("K9", 9));
  EXPECT_FALSE(unsigned_writer->verify().problem);
  EXPECT_THROW((void)Ed25519Key::load_private(pub, "--sign-key"), UsageError);
}

// Renumbers record `from` (its record row and every row of it) to `to`.
void renumber(SqlConnection& db, std::int64_t from, std::int64_t to) {
  db.query("UPDATE record SET seq = $1 WHERE seq = $2", {to, from});
  for (const auto& t : archive_tables())
    db.query("UPDATE " + std::string(t.name) + " SET record_seq = $1 WHERE record_seq = $2",
             {to, from});
}

TYPED_TEST(ArchiveConformance, VerifyNamesASwapAsAReorder) {
  auto a = this->five_records();
  renumber(a->connection(), 3, 1000);
  renumber(a->connection(), 4, 3);
  renumber(a->connection(), 1000, 4);
  EXPECT_EQ(a->verify().problem.value_or(""),
            "records 3 and 4 were reordered: each holds the other's place in the chain");
}

TYPED_TEST(ArchiveConformance, VerifyNamesPlantedRowsAndTheNextRecordRefusesThem) {
  auto a = this->five_records();
  a->connection().execute_script(
      "INSERT INTO tag (record_seq, idx, key, value) VALUES (6, 7, 'po', 'planted')");
  EXPECT_EQ(a->verify().problem.value_or(""),
            "table tag holds rows of record 6, which is not in the chain (planted, or left by a "
            "removed record)");
  try {
    record(*a, unit_run("S6", 6));
    FAIL() << "recorded over planted rows";
  } catch (const ArchiveError& e) {
    EXPECT_NE(std::string(e.what()).find("holds rows of record 6 before it was recorded"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(a->record_count(), 5);
  // A result filed by no record.
  a->connection().execute_script("DELETE FROM tag WHERE record_seq = 6");
  a->connection().execute_script("INSERT INTO result_json (sha256, content) VALUES ('" +
                                 std::string(64, 'a') + "', '{}')");
  EXPECT_EQ(a->verify().problem.value_or(""),
            "table result_json holds a result (aaaaaaaaaaaa) that no record of the chain files");
}

TYPED_TEST(ArchiveConformance, VerifyNamesAReplacedViewAndATrigger) {
  auto a = this->five_records();
  SqlConnection& db = a->connection();
  EXPECT_FALSE(a->verify().problem);
  if (db.engine() == "sqlite")
    db.execute_script("CREATE TRIGGER doubling AFTER INSERT ON figure BEGIN SELECT 1; END");
  else
    db.execute_script(
        "CREATE FUNCTION doubling() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; "
        "END$$; CREATE TRIGGER doubling BEFORE INSERT ON figure FOR EACH ROW EXECUTE FUNCTION "
        "doubling()");
  EXPECT_NE(a->verify().problem.value_or("").find("a trigger"), std::string::npos)
      << a->verify().problem.value_or("");
  db.execute_script(db.engine() == "sqlite" ? "DROP TRIGGER doubling"
                                            : "DROP TRIGGER doubling ON figure");
  EXPECT_FALSE(a->verify().problem);
  db.execute_script("DROP VIEW v_figures");
  db.execute_script(
      "CREATE VIEW v_figures AS SELECT r.seq AS record, u.start_utc, d.serial, d.model, "
      "u.firmware, f.workload, f.name, f.value * 2 AS value, f.unit, f.interval_low, "
      "f.interval_high, f.samples FROM record r JOIN run u ON u.record_seq = r.seq JOIN device d "
      "ON d.record_seq = r.seq JOIN figure f ON f.record_seq = r.seq");
  EXPECT_EQ(a->verify().problem.value_or(""),
            "the view v_figures is not storqual's (it was replaced)");
  db.execute_script("DROP VIEW v_figures");
  EXPECT_EQ(a->verify().problem.value_or(""), "the view v_figures is gone");
}

TYPED_TEST(ArchiveConformance, AForeignDatabaseIsRefusedAndReadingCreatesNothing) {
  // Reading an empty database: refused, and still empty.
  try {
    (void)Archive::open_to_read(this->where_);
    FAIL() << "read an archive that is not there";
  } catch (const ArchiveError& e) {
    EXPECT_NE(std::string(e.what()).find("no storqual archive"), std::string::npos) << e.what();
  }
  {
    auto a = this->open();  // records: made and marked
    record(*a, unit_run("F1", 1));
  }
  auto r = Archive::open_to_read(this->where_);
  EXPECT_THROW(r->connection().execute_script("DELETE FROM tag"), ArchiveError)
      << "a reading connection wrote";
  EXPECT_EQ(r->history(by_serial("F1")).size(), 1u);
  // Another application's database: refused, its table alone.
  const ArchiveLocation foreign = this->engine_.fresh("foreign");
  {
    auto db = foreign.kind == ArchiveLocation::Kind::Sqlite
                  ? create_sqlite(foreign.target)
                  : open_postgresql(foreign.target, ArchiveAccess::Record);
    db->execute_script("CREATE TABLE dashboard (id BIGINT, data TEXT)");
  }
  for (int read = 0; read < 2; ++read) {
    try {
      if (read)
        (void)Archive::open_to_read(foreign);
      else
        (void)Archive::open(foreign);
      ADD_FAILURE() << "opened another application's database";
    } catch (const ArchiveError& e) {
      EXPECT_NE(std::string(e.what()).find("storqual leaves it as it is"), std::string::npos)
          << e.what();
    }
  }
  if (foreign.kind == ArchiveLocation::Kind::Sqlite)
    EXPECT_EQ(testing::read_file(foreign.target).find("CREATE TABLE record"), std::string::npos)
        << "storqual's tables were made in it";
  else
    EXPECT_FALSE(open_postgresql(foreign.target, ArchiveAccess::Read)->has_table("record"))
        << "storqual's tables were made in it";
}

TYPED_TEST(ArchiveConformance, AValueOfAnotherTypeCannotBeStored) {
  auto a = this->five_records();
  SqlConnection& db = a->connection();
  EXPECT_THROW(db.execute_script("UPDATE figure SET value = 'abc' WHERE record_seq = 2"),
               ArchiveError);
  EXPECT_THROW(db.execute_script("UPDATE record SET seq = 'x' WHERE seq = 5"), ArchiveError);
  EXPECT_FALSE(a->verify().problem);
}

// SQLite alone: what a file can be that a server cannot.
TEST(SqliteArchive, ACorruptFileIsRefusedAndLeftAsItIs) {
  ScratchDir dir("storqual-archive");
  const auto path = dir / "archive.sqlite";
  std::string garbage(8192, 'x');
  garbage.replace(0, 16, "not a database!!");
  { std::ofstream(path, std::ios::binary) << garbage; }
  try {
    (void)Archive::open(parse_archive_location(path.string(), "test"));
    FAIL() << "opened a corrupt file";
  } catch (const ArchiveError& e) {
    EXPECT_NE(std::string(e.what()).find("not an SQLite database"), std::string::npos) << e.what();
  }
  EXPECT_EQ(testing::read_file(path), garbage);
  EXPECT_FALSE(std::filesystem::exists(path.string() + "-wal"));
}

TEST(SqliteArchive, AMissingDirectoryIsNamedNotMade) {
  ScratchDir dir("storqual-archive");
  const auto path = dir / "no" / "such" / "archive.sqlite";
  try {
    (void)Archive::open(parse_archive_location(path.string(), "test"));
    FAIL();
  } catch (const ArchiveError& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "no"));
}

TEST(SqliteArchive, AWriterWaitsForTheOneHoldingTheLock) {
  ScratchDir dir("storqual-archive");
  const auto where = parse_archive_location((dir / "a.sqlite").string(), "test");
  auto holder = Archive::open(where);
  holder->connection().begin_write();
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    holder->connection().commit();
  });
  auto writer = Archive::open(where);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(record(*writer, unit_run("W", 1)).seq, 1);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  release.join();
  const auto mode = writer->connection().query("PRAGMA journal_mode", {});
  EXPECT_EQ(std::get<std::string>(mode[0][0]), "wal");
}

// An attacker who rebuilds a table without STRICT could store a value of another type: verify
// reads each value as the type it has, not as its column's (0.75 is not exit code 0, "98400abc" is
// not 98400, record 6.5 is not record 6).
TEST(SqliteArchive, AValueOfAnotherTypeInARebuiltTableIsAnEdit) {
  ScratchDir dir("storqual-archive");
  const auto where = parse_archive_location((dir / "a.sqlite").string(), "test");
  auto a = Archive::open(where);
  for (int i = 1; i <= 6; ++i) record(*a, unit_run("T" + std::to_string(i), i));
  SqlConnection& db = a->connection();
  EXPECT_THROW(db.execute_script("UPDATE run SET exit_code = 0.75 WHERE record_seq = 2"),
               ArchiveError)
      << "the STRICT table took it";
  auto loosen = [&](const std::string& table) {
    db.execute_script(
        "DROP VIEW IF EXISTS v_runs; DROP VIEW IF EXISTS v_figures; DROP VIEW IF "
        "EXISTS v_verdicts; DROP VIEW IF EXISTS v_tags; CREATE TABLE loose AS SELECT * FROM " +
        table + "; DROP TABLE " + table + "; ALTER TABLE loose RENAME TO " + table);
  };
  loosen("run");
  db.execute_script("UPDATE run SET exit_code = 0.25 WHERE record_seq = 2");
  EXPECT_EQ(a->verify().problem.value_or(""),
            "record 2 was edited: its rows no longer match its hash");
  db.execute_script("UPDATE run SET exit_code = 0 WHERE record_seq = 2");
  loosen("figure");
  db.execute_script(
      "UPDATE figure SET value = CAST(value AS TEXT) || 'abc' WHERE record_seq = 3 AND idx = 0");
  EXPECT_EQ(a->verify().problem.value_or(""),
            "record 3 was edited: its rows no longer match its hash");
  db.execute_script("UPDATE figure SET value = CAST(value AS REAL) WHERE record_seq = 3");
  loosen("record");
  db.execute_script("UPDATE record SET seq = 6.5 WHERE seq = 6");
  EXPECT_EQ(
      a->verify().problem.value_or(""),
      "record 6.5 was edited: its record row holds a value of another type than its column's");
}

// Bytes that are not UTF-8 (a serial as a device gave it) are hashed as they are: changing them
// is an edit, not a U+FFFD that reads the same.
TEST(SqliteArchive, BytesThatAreNotUtf8AreHashedAsTheyAre) {
  ScratchDir dir("storqual-archive");
  auto a = Archive::open(parse_archive_location((dir / "a.sqlite").string(), "test"));
  record(*a, unit_run("unit\xff", 1));
  EXPECT_FALSE(a->verify().problem);
  a->connection().query("UPDATE device SET serial = $1", {std::string("unit\xfe")});
  EXPECT_EQ(a->verify().problem.value_or(""),
            "record 1 was edited: its rows no longer match its hash");
}

TEST(ArchiveTags, ATagThatIsNotUtf8OrHoldsAC1ControlIsRefused) {
  EXPECT_THROW((void)parse_archive_tag("po=47\xff"
                                       "11",
                                       "--tag"),
               UsageError);
  EXPECT_THROW((void)parse_archive_tag("po=\xc2\x9b"
                                       "31m",
                                       "--tag"),
               UsageError);
  EXPECT_THROW((void)parse_archive_tag("po=\xc0\xaf", "--tag"), UsageError);
  EXPECT_EQ(parse_archive_tag("site=K\xc3\xb6ln", "--tag").value, "K\xc3\xb6ln");
}

}  // namespace
}  // namespace storqual::reporting
