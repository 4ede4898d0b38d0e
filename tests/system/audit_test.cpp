// SPDX-License-Identifier: Apache-2.0
// `storqual audit` end to end with the real binary (docs/archive.md, "Audit"): an archive of three
// models, earlier lots and one purchase order of 20 units, all made from one real run's result and
// imported with `storqual archive import`; the CSV read back with Python's csv module, the HTML's
// rows, summary, hashes, chain status and charts; a broken chain shown on the page (exit 1); bad
// selections refused (exit 2); and the page laid out in headless chromium (tables within 1000 px,
// printed pages counted with pdfinfo), its screenshot docs/audit.png.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "archive/archive.hpp"
#include "archive/audit_report.hpp"
#include "reporting/result_json.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::count;
using testing::read_file;
using testing::run_command;
using testing::ScratchDir;
using Json = nlohmann::json;

CommandResult storqual(std::vector<std::string> args) {
  args.insert(args.begin(), STORQUAL_BINARY);
  return run_command(args);
}

constexpr const char* kQuickSuite =
    "<suite name=\"audit-quick\" description=\"one short rated read\">\n"
    "  <defaults direct=\"0\" runtime=\"100ms\" ramp_time=\"0s\" size=\"1m\" numjobs=\"1\"/>\n"
    "  <workload id=\"quick-read\" rw=\"randread\" bs=\"4k\" iodepth=\"1\" rate_iops=\"2000\"/>\n"
    "</suite>\n";

const char* const kModels[] = {"Audit SSD A", "Audit SSD B", "Audit SSD C"};

// What one synthetic unit's run is: its unit, when, how it ended, its health.
struct UnitRun {
  std::string serial, model, start_utc;
  int exit_code = 0;
  double iops = 0;
  std::string wear;         // percentage_used after the run ("" none read)
  std::string health_fail;  // a failing health verdict's message ("" none)
  std::string host;
};

void set_identity(reporting::RunResult& r, const std::string& field, const std::string& value) {
  auto& rows = r.device.identity;
  std::erase_if(rows, [&](const reporting::FieldRow& f) { return f.field == field; });
  rows.push_back({field, value, "audit test"});
}

reporting::RunResult make_run(const reporting::RunResult& tmpl, const UnitRun& u) {
  reporting::RunResult r = tmpl;
  set_identity(r, "serial", u.serial);
  set_identity(r, "model", u.model);
  r.environment.start_utc = u.start_utc;
  r.environment.end_utc = u.start_utc;
  r.environment.host = u.host;
  r.exit_code = u.exit_code;
  r.measure_only = false;
  r.verdicts.clear();
  for (auto& w : r.workloads) {
    w.timeline.clear();
    if (w.read) w.read->iops = u.iops;
  }
  r.device.health_before.clear();
  r.device.health_after.clear();
  if (!u.wear.empty()) r.device.health_after.push_back({"percentage_used", u.wear, "audit test"});
  if (!u.health_fail.empty()) {
    reporting::ClaimVerdict v;
    v.kind = reporting::VerdictKind::Health;
    v.metric = "media_errors";
    v.status = reporting::VerdictStatus::Fail;
    v.message = u.health_fail;
    r.verdicts.push_back(v);
  }
  return r;
}

// The archive of the tests: per model two earlier lots (L1 in February, L2 in May, four units
// each) and the order po=4711 (lot L3, September): 20 units, 7 + 7 + 6, one of which failed, one
// incomplete, one with a failing health verdict, one re-tested (first fail, then pass); and a decoy
// order po=9999 in the same lot.
struct AuditArchive {
  ScratchDir dir{"audit"};
  std::string archive;
  std::map<std::string, UnitRun> order;  // serial -> its latest run
  fs::path order_file;

  AuditArchive() {
    fs::create_directories(dir / "target");
    std::ofstream(dir / "quick.xml") << kQuickSuite;
    const auto run = storqual({"run", "--target", (dir / "target").string(), "--suite",
                               (dir / "quick.xml").string(), "--out", (dir / "quick").string(),
                               "--archive", "off"});
    EXPECT_LE(run.exit_code, 3) << run.err;
    const auto tmpl = reporting::load_run_result((dir / "quick" / "storqual-result.json").string());
    archive = (dir / "audit.sqlite").string();
    int n = 0;
    for (const std::string lot : {"L1", "L2"})
      for (int m = 0; m < 3; ++m) {
        std::vector<UnitRun> runs;
        for (int i = 0; i < 4; ++i)
          runs.push_back({"E" + lot + std::to_string(m) + std::to_string(i), kModels[m],
                          "2026-0" + std::string(lot == "L1" ? "2" : "5") + "-1" +
                              std::to_string(i) + "T08:00:00Z",
                          0, 10000.0 * (m + 1) + 100 * (n++ % 7), std::to_string(i), "", "lab-1"});
        import(tmpl, runs, lot + "-" + std::to_string(m), {"--tag", "lot=" + lot});
      }
    std::vector<UnitRun> runs;
    for (int k = 0; k < 20; ++k) {
      const int m = k < 7 ? 0 : k < 14 ? 1 : 2;
      UnitRun u{"PO4711-" + std::string(1, char('A' + m)) + "-" + std::to_string(k),
                kModels[m],
                "2026-09-" + std::to_string(10 + k % 10) + "T09:00:00Z",
                0,
                9000.0 * (m + 1) + 150 * k,
                std::to_string(k % 5),
                "",
                "lab-1"};
      if (k == 2) u.exit_code = 1;
      if (k == 9) u.exit_code = 3;
      if (k == 4) u.health_fail = "media errors 0 -> 3";
      if (k == 5) u.host = "lab,\"east\" 2";  // a comma and quotes, for the CSV's quoting
      if (k == 15) {
        UnitRun first = u;
        first.exit_code = 1;
        first.start_utc = "2026-09-01T09:00:00Z";
        runs.push_back(first);
      }
      runs.push_back(u);
      order[u.serial] = u;
    }
    order_file = import(tmpl, runs, "order", {"--tag", "po=4711", "--tag", "lot=L3"});
    import(tmpl,
           {{ "DECOY-1",
              kModels[0],
              "2026-09-20T09:00:00Z",
              0,
              1,
              "",
              "",
              "lab-1" }},
           "decoy", {"--tag", "po=9999", "--tag", "lot=L3"});
  }

  fs::path import(const reporting::RunResult& tmpl, const std::vector<UnitRun>& runs,
                  const std::string& name, std::vector<std::string> tags) {
    Json fleet = {{"fleet", Json::array()}};
    for (const auto& u : runs)
      fleet["fleet"].push_back(Json::parse(reporting::to_json_text(make_run(tmpl, u))));
    const fs::path file = dir / (name + ".json");
    std::ofstream(file) << fleet.dump();
    std::vector<std::string> args = {"archive", "import", file.string(), "--archive", archive};
    args.insert(args.end(), tags.begin(), tags.end());
    const auto out = storqual(args);
    EXPECT_EQ(out.exit_code, 0) << out.err;
    return file;
  }

  CommandResult audit(std::vector<std::string> more) const {
    std::vector<std::string> args = {"audit", "--archive", archive};
    args.insert(args.end(), more.begin(), more.end());
    return storqual(args);
  }
};

std::string sha256_of(const fs::path& file) {
  return reporting::archive_sha256_hex(read_file(file));
}

// The CSV as Python's csv module reads it: a list of {column: value}.
Json read_csv(const fs::path& file) {
  const auto out = run_command(
      {"python3", "-c",
       "import csv, json, sys\n"
       "print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))",
       file.string()});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  return Json::parse(out.out);
}

std::string head_of(const std::string& verify_out) {
  const auto at = verify_out.find("head ");
  return at == std::string::npos ? "" : verify_out.substr(at + 5, 64);
}

TEST(Audit, ThePurchaseOrderAsCsvAndHtml) {
  AuditArchive a;
  const auto out = a.audit({"--tag", "po=4711", "--html", (a.dir / "audit.html").string(), "--csv",
                            (a.dir / "audit.csv").string()});
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("20 units, 21 runs"), std::string::npos) << out.out;

  const Json rows = read_csv(a.dir / "audit.csv");
  ASSERT_EQ(rows.size(), 20u);
  const std::string fleet_sha = sha256_of(a.order_file);
  std::set<std::string> serials;
  for (const auto& row : rows) {
    const std::string serial = row["serial"];
    serials.insert(serial);
    ASSERT_TRUE(a.order.count(serial)) << serial;
    const UnitRun& u = a.order.at(serial);
    EXPECT_EQ(row["model"], u.model);
    EXPECT_EQ(row["verdict"], u.exit_code == 0 ? "pass" : u.exit_code == 1 ? "fail" : "incomplete");
    EXPECT_EQ(row["exit_code"], std::to_string(u.exit_code));
    EXPECT_EQ(row["start_utc"], u.start_utc);
    EXPECT_EQ(row["host"], u.host);
    EXPECT_EQ(row["runs"], serial == "PO4711-C-15" ? "2" : "1") << serial;
    if (u.health_fail.empty())
      EXPECT_EQ(row["health"], "read, not judged (wear " + u.wear + "%)") << serial;
    else
      EXPECT_EQ(row["health"], "fail: " + u.health_fail);
    EXPECT_EQ(row["tags"], "po=4711 lot=L3");
    // The file it was imported from is the record's json report.
    EXPECT_EQ(row["json_sha256"], fleet_sha);
    // The result's hash is the one its history shows, and the stored JSON has it.
    const auto hist = storqual({"history", "--serial", serial, "--json", "--archive", a.archive});
    const Json runs = Json::parse(hist.out)["runs"];
    ASSERT_FALSE(runs.empty());
    EXPECT_EQ(row["result_sha256"], runs.back()["result_sha256"]);
    EXPECT_EQ(std::string(row["result_sha256"]).size(), 64u);
  }
  EXPECT_EQ(serials.size(), 20u);
  EXPECT_EQ(serials.count("DECOY-1"), 0u);

  const std::string html = read_file(a.dir / "audit.html");
  EXPECT_EQ(count(html, "<tr class=\"unit "), 20u);
  EXPECT_EQ(count(html, "<tr class=\"unit fail\">"), 1u);
  EXPECT_EQ(count(html, "<tr class=\"unit error\">"), 1u);
  EXPECT_EQ(count(html, "<td class=\"bad\">fail: media errors 0 -&gt; 3</td>"), 1u);
  // The summary: A has 7 units (1 fail), B 7 (1 incomplete), C 6 (all pass after the re-test).
  EXPECT_NE(html.find("<tr><td>Audit SSD A</td><td class=\"num\">7</td><td class=\"num\">6</td>"
                      "<td class=\"num\">1</td><td class=\"num\">0</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>Audit SSD B</td><td class=\"num\">7</td><td class=\"num\">6</td>"
                      "<td class=\"num\">0</td><td class=\"num\">1</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>Audit SSD C</td><td class=\"num\">6</td><td class=\"num\">6</td>"
                      "<td class=\"num\">0</td><td class=\"num\">0</td>"),
            std::string::npos);
  for (const auto& row : rows) {
    EXPECT_NE(html.find(std::string(row["result_sha256"])), std::string::npos);
  }
  EXPECT_EQ(count(html, fleet_sha), 20u);
  // The chain as archive verify sees it.
  const auto verify = storqual({"archive", "verify", "--archive", a.archive});
  ASSERT_EQ(verify.exit_code, 0) << verify.out;
  EXPECT_NE(html.find("<strong>the chain is whole</strong>"), std::string::npos);
  EXPECT_NE(html.find("46 records"), std::string::npos) << "24 earlier, 21 of the order, 1 decoy";
  EXPECT_NE(html.find("<code id=\"head-hash\">" + head_of(verify.out) + "</code>"),
            std::string::npos);
  // One chart per model (one workload), each lot a line, the order's marked.
  EXPECT_EQ(count(html, "<svg"), 3u);
  EXPECT_EQ(count(html, "lot L3 (this audit)"), 3u);
  EXPECT_EQ(count(html, "lot L1"), 3u);
  // Self-contained: the run report's policy, no script, nothing to fetch.
  EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find(" href="), std::string::npos);
}

TEST(Audit, NarrowedToAModelAndDates) {
  AuditArchive a;
  const auto out = a.audit({"--tag", "lot=L3", "--model", "Audit SSD A", "--since", "2026-09-12",
                            "--until", "2026-09-15", "--html", (a.dir / "a.html").string(), "--csv",
                            (a.dir / "a.csv").string()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const Json rows = read_csv(a.dir / "a.csv");
  std::set<std::string> serials;
  for (const auto& r : rows) serials.insert(r["serial"]);
  // Model A is k = 0..6, started on the (10 + k)th: the 12th, 13th and 14th.
  EXPECT_EQ(serials, (std::set<std::string>{"PO4711-A-2", "PO4711-A-3", "PO4711-A-4"}));
}

TEST(Audit, ABrokenChainIsOnThePageAndExitsOne) {
  AuditArchive a;
  const auto edit = run_command(
      {"python3", "-c",
       "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\n"
       "c.execute(\"UPDATE figure SET value = value * 2 WHERE record_seq = 5 AND name = 'iops'\")\n"
       "c.commit()",
       a.archive});
  ASSERT_EQ(edit.exit_code, 0) << edit.err;
  const auto out = a.audit({"--tag", "po=4711", "--html", (a.dir / "broken.html").string()});
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  const std::string html = read_file(a.dir / "broken.html");
  EXPECT_NE(html.find("<strong>the chain is broken</strong>: record 5 was edited"),
            std::string::npos);
  EXPECT_NE(html.find("class=\"box chain bad\""), std::string::npos);
}

TEST(Audit, BadSelectionsAreRefused) {
  AuditArchive a;
  const std::string html = (a.dir / "x.html").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"--tag", "po", "--html", html}, "--tag"},
           {{"--tag", "=4711", "--html", html}, "--tag"},
           {{"--html", html}, "give --tag"},
           {{"--tag", "po=4711"}, "--html FILE is required"},
           {{"--tag", "po=1234", "--html", html}, "no run in"},
           {{"--tag", "po=4711", "--since", "Sept", "--html", html}, "--since"},
           {{"--tag", "po=4711", "--serial", "S", "--model", "M", "--html", html}, "not both"}}) {
    const auto out = a.audit(c.args);
    EXPECT_EQ(out.exit_code, 2) << c.args[0] << " " << c.args[1] << ": " << out.err;
    EXPECT_NE(out.err.find(c.says), std::string::npos) << out.err;
  }
  EXPECT_FALSE(fs::exists(html));
  const auto off = storqual({"audit", "--archive", "off", "--tag", "po=4711", "--html", html});
  EXPECT_EQ(off.exit_code, 2);
}

// ---- The page in a browser ----

using ::storqual::testing::chromium_missing;
using ::storqual::testing::find_chromium;
using ::storqual::testing::run_chromium;

// The page forbids scripts: the measuring script goes into a copy without the policy and writes
// each table's right edge and the document's widths into <pre id="layout">.
constexpr const char* kMeasureScript = R"js(<script>(function () {
  const out = [], doc = document.documentElement;
  out.push('viewport ' + doc.clientWidth);
  out.push('scroll ' + doc.scrollWidth);
  for (const t of document.querySelectorAll('table, svg'))
    out.push('box ' + t.getBoundingClientRect().right);
  const pre = document.createElement('pre');
  pre.id = 'layout';
  pre.textContent = '\n' + out.join('\n') + '\n';
  document.body.appendChild(pre);
})();</script>)js";

TEST(AuditBrowser, ThePageFitsAThousandPixelsAndPrints) {
  const std::string binary = find_chromium();
  STORQUAL_REQUIRE(!binary.empty(), chromium_missing());
  AuditArchive a;
  const fs::path page = a.dir / "audit.html";
  const auto out = a.audit({"--tag", "po=4711", "--html", page.string()});
  ASSERT_EQ(out.exit_code, 0) << out.err;

  std::string html = read_file(page);
  const auto csp = html.find("<meta http-equiv=\"Content-Security-Policy\"");
  ASSERT_NE(csp, std::string::npos);
  html.erase(csp, html.find('>', csp) + 1 - csp);
  html.insert(html.rfind("</body>"), kMeasureScript);
  const fs::path copy = a.dir / "measure.html";
  std::ofstream(copy) << html;
  const auto dom = run_chromium(binary, a.dir / "profile-measure",
                                {"--window-size=1000,2000", "--hide-scrollbars",
                                 "--run-all-compositor-stages-before-draw", "--dump-dom"},
                                copy);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const auto from = dom.out.find("<pre id=\"layout\">");
  ASSERT_NE(from, std::string::npos) << "the measuring script wrote nothing";
  std::istringstream in(dom.out.substr(from, dom.out.find("</pre>", from) - from));
  double viewport = 0, scroll = 0;
  std::vector<double> boxes;
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string key;
    double v = 0;
    f >> key >> v;
    if (key == "viewport") viewport = v;
    if (key == "scroll") scroll = v;
    if (key == "box") boxes.push_back(v);
  }
  std::printf("[layout] viewport %.0f px, document %.0f px wide, %zu tables and charts\n", viewport,
              scroll, boxes.size());
  ASSERT_GT(viewport, 900);
  EXPECT_LE(scroll, viewport) << "the page scrolls sideways";
  EXPECT_EQ(boxes.size(), 4u + 3u) << "about, summary, units, files and 3 charts";
  for (double right : boxes) EXPECT_LE(right, viewport) << "a table or chart overflows";

  const fs::path png = a.dir / "audit.png";
  const auto shot = run_chromium(
      binary, a.dir / "profile-png",
      {"--window-size=1000,1400", "--hide-scrollbars", "--screenshot=" + png.string()}, page);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  const std::string image = read_file(png);
  ASSERT_GT(image.size(), 8u);
  EXPECT_EQ(image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(image.size(), 40u * 1024) << "screenshot suspiciously small: blank?";
  if (const char* want = std::getenv("STORQUAL_UPDATE_DOC_SCREENSHOTS"); want && *want == '1')
    fs::copy_file(png, fs::path(STORQUAL_SOURCE_DIR) / "docs" / "audit.png",
                  fs::copy_options::overwrite_existing);

  STORQUAL_REQUIRE(storqual::testing::have_program("pdfinfo"),
                   "pdfinfo (apt-get install poppler-utils)");
  const fs::path pdf = a.dir / "audit.pdf";
  const auto printed =
      run_chromium(binary, a.dir / "profile-pdf",
                   {"--no-pdf-header-footer", "--print-to-pdf=" + pdf.string()}, page);
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  const auto info = run_command({"pdfinfo", pdf.string()});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto at = info.out.find("Pages:");
  ASSERT_NE(at, std::string::npos) << info.out;
  const int pages = std::stoi(info.out.substr(at + 6));
  std::printf("[layout] printed: %d pages\n", pages);
  EXPECT_GE(pages, 2);
  EXPECT_LE(pages, 6) << "20 units, their hashes and three charts";
}

TEST(Audit, SerialsInTheOrderAPersonReadsThem) {
  using reporting::serial_before;
  std::vector<std::string> serials = {"B-10",  "B-9",  "A-2", "B-010", "B-7",
                                      "B-07x", "B-7a", "",    "B-100", "B"};
  std::sort(serials.begin(), serials.end(),
            [](const std::string& a, const std::string& b) { return serial_before(a, b); });
  EXPECT_EQ(serials, (std::vector<std::string>{"", "A-2", "B", "B-7", "B-7a", "B-07x", "B-9",
                                               "B-10", "B-010", "B-100"}));
  for (const auto& s : serials) EXPECT_FALSE(serial_before(s, s)) << s;
}

}  // namespace
}  // namespace storqual
