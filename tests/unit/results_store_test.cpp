// SPDX-License-Identifier: Apache-2.0
// The results-store seam (archive/results_store.hpp): the file store writes a run's and a fleet's
// reports exactly as the writers render them, only where asked, atomically; reads back a result
// and a fleet file; the registry makes it by name; the report names and their per-device forms
// come from one place (reporting/report_names.hpp); and a qualification run saves through the
// store its options name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "archive/results_store.hpp"
#include "reporting/fleet_report.hpp"
#include "reporting/html_report.hpp"
#include "reporting/junit_report.hpp"
#include "reporting/ocp_diag.hpp"
#include "reporting/report_names.hpp"
#include "reporting/result_json.hpp"
#include "runner/base/errors.hpp"
#include "runner/qualification/qualification.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

namespace fs = std::filesystem;
using storqual::testing::read_file;
using storqual::testing::ScratchDir;

TEST(ReportNames, DefaultsInTheOutputDirectoryUnlessGiven) {
  const ReportSet d = default_reports("out", std::nullopt, std::nullopt, std::nullopt);
  EXPECT_EQ(d.json, "out/storqual-result.json");
  EXPECT_EQ(d.junit, "out/storqual-junit.xml");
  EXPECT_EQ(d.html, "out/storqual-report.html");
  EXPECT_FALSE(d.junit_rich);
  const ReportSet g = default_reports("out", "r.json", std::nullopt, "/x/page.html", true);
  EXPECT_EQ(g.json, "r.json");
  EXPECT_EQ(g.junit, "out/storqual-junit.xml");
  EXPECT_EQ(g.html, "/x/page.html");
  EXPECT_TRUE(g.junit_rich);
  EXPECT_EQ(d.ocp_diag, "") << "the OCP stream only when asked for";
  EXPECT_EQ(default_reports("out", {}, {}, {}, false, "").ocp_diag, "out/storqual-ocp.jsonl");
  EXPECT_EQ(default_reports("out", {}, {}, {}, false, "x.jsonl").ocp_diag, "x.jsonl");
  ScratchDir dir("store-names");
  EXPECT_EQ(default_reports("out", {}, {}, {}, false, dir.path().string()).ocp_diag,
            (dir / "storqual-ocp.jsonl").string());
}

TEST(ReportNames, EachDeviceOfAFleetGetsItsLabel) {
  EXPECT_EQ(path_with_label("out/storqual-result.json", "loop3"), "out/storqual-result-loop3.json");
  EXPECT_EQ(path_with_label("report", "sda"), "report-sda");
  const ReportSet l =
      with_label(default_reports(".", std::nullopt, std::nullopt, std::nullopt, true), "nvme0n1");
  EXPECT_EQ(l.json, "./storqual-result-nvme0n1.json");
  EXPECT_EQ(l.junit, "./storqual-junit-nvme0n1.xml");
  EXPECT_EQ(l.html, "./storqual-report-nvme0n1.html");
  EXPECT_TRUE(l.junit_rich);
  EXPECT_EQ(with_label(default_reports(".", {}, {}, {}, false, ""), "sda").ocp_diag,
            "./storqual-ocp-sda.jsonl");
  ReportSet json_only;
  json_only.json = "a.json";
  EXPECT_EQ(with_label(json_only, "x").junit, "");  // not asked for: still none
}

TEST(FileResultsStore, SavesARunAsTheWritersRenderItAndReadsItBack) {
  ScratchDir dir("store-run");
  const RunResult run = sample::run(true);
  FileResultsStore store;
  const ReportSet reports{(dir / "r.json").string(), (dir / "r.xml").string(),
                          (dir / "r.html").string(), true, (dir / "r.jsonl").string()};
  store.save(run, reports);
  EXPECT_EQ(read_file(reports.json), to_json_text(run));
  EXPECT_EQ(read_file(reports.ocp_diag), render_ocp_diag(run));
  EXPECT_EQ(read_file(reports.junit), render_junit({run}, {.rich = true}));
  EXPECT_EQ(read_file(reports.html), render_html(run));
  const auto back = store.load(reports.json);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(to_json_text(back.front()), to_json_text(run));
}

TEST(FileResultsStore, WritesOnlyTheReportsAskedFor) {
  ScratchDir dir("store-some");
  FileResultsStore store;
  ReportSet reports;
  reports.json = (dir / "only.json").string();
  store.save(sample::run(false), reports);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"only.json"});
}

TEST(FileResultsStore, SavesAFleetAndLoadsItsRuns) {
  ScratchDir dir("store-fleet");
  RunResult a = sample::run(false), b = sample::run(true);
  a.environment.host = "a";
  b.environment.host = "b";
  const FleetReport fleet = build_fleet({a, b}, 10);
  FileResultsStore store;
  const ReportSet reports{(dir / "f.json").string(), (dir / "f.xml").string(),
                          (dir / "f.html").string(), false, (dir / "f.jsonl").string()};
  store.save(fleet, reports);
  EXPECT_FALSE(fs::exists(reports.ocp_diag)) << "a fleet's merged reports have no OCP stream";
  EXPECT_EQ(read_file(reports.json), fleet_to_json_text(fleet));
  EXPECT_EQ(read_file(reports.junit), render_junit(fleet.runs));
  EXPECT_EQ(read_file(reports.html), render_fleet_html(fleet));
  const auto back = store.load(reports.json);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].environment.host, "a");
  EXPECT_EQ(back[1].environment.host, "b");
}

TEST(FileResultsStore, AFailedWriteThrowsAndLeavesNothing) {
  ScratchDir dir("store-fail");
  FileResultsStore store;
  ReportSet reports;
  reports.json = (dir / "no-such" / "r.json").string();
  EXPECT_THROW(store.save(sample::run(false), reports), std::system_error);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(FileResultsStore, ALoadNamesTheSourceItCannotRead) {
  ScratchDir dir("store-load");
  FileResultsStore store;
  const std::string missing = (dir / "missing.json").string();
  try {
    (void)store.load(missing);
    FAIL() << "no exception";
  } catch (const ResultJsonError& e) {
    EXPECT_EQ(std::string(e.what()), missing + ": cannot open");
  }
  std::ofstream(dir / "bad.json") << "{\"fleet\": 3}";
  EXPECT_THROW((void)store.load((dir / "bad.json").string()), ResultJsonError);
}

TEST(ResultsStoreRegistry, MakesTheFileStoreByName) {
  const auto names = results_store_names();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "files");
  for (const auto name : names) EXPECT_EQ(make_results_store(name)->name(), name);
  EXPECT_EQ(default_results_store().name(), "files");
  EXPECT_THROW((void)make_results_store("sqlite-someday"), UsageError);
}

// A store that keeps what it is given, in memory: the seam a results archive takes.
class MemoryStore final : public ResultsStore {
 public:
  std::vector<std::pair<RunResult, ReportSet>> runs;
  [[nodiscard]] std::string_view name() const noexcept override { return "memory"; }
  void save(const RunResult& run, const ReportSet& reports) override {
    runs.emplace_back(run, reports);
  }
  void save(const FleetReport& fleet, const ReportSet& reports) override {
    for (const auto& r : fleet.runs) save(r, reports);
  }
  [[nodiscard]] std::vector<RunResult> load(const std::string&) override {
    std::vector<RunResult> out;
    for (const auto& [r, where] : runs) out.push_back(r);
    return out;
  }
};

TEST(ResultsStoreSeam, AQualificationRunSavesThroughTheStoreItIsGiven) {
  ScratchDir dir("store-seam");
  std::ofstream(dir / "suite.xml")
      << "<?xml version=\"1.0\"?>\n<suite name=\"seam\" description=\"one null workload\">\n"
         "  <workload id=\"r\" rw=\"randread\" bs=\"4k\" iodepth=\"1\" runtime=\"0.2\" "
         "size=\"1m\"/>\n"
         "</suite>\n";
  fs::create_directories(dir / "target");
  runner::QualificationOptions o;
  o.target = (dir / "target").string();
  o.suite = (dir / "suite.xml").string();
  o.ioengine = "null";
  o.out_dir = (dir / "out").string();
  o.measure_only = true;
  o.thermal_interval_s = 0;
  std::FILE* console = std::tmpfile();
  ASSERT_NE(console, nullptr);
  o.console = console;
  MemoryStore store;
  o.store = &store;
  const auto outcome = runner::run_qualification(o);
  std::fclose(console);
  ASSERT_EQ(store.runs.size(), 1u);
  EXPECT_EQ(store.runs[0].second.json, (dir / "out" / "storqual-result.json").string());
  EXPECT_EQ(store.runs[0].second.html, outcome.html_path);
  EXPECT_EQ(to_json_text(store.runs[0].first), to_json_text(outcome.result));
  EXPECT_FALSE(fs::exists(outcome.json_path));  // the memory store wrote no file
}

}  // namespace
}  // namespace storqual::reporting
