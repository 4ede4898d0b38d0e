// SPDX-License-Identifier: Apache-2.0
// Fleets and baselines end to end with the real binary: a baseline comparison flags the workload
// whose IOPS was rated 20% lower and not the unchanged one; several targets in parallel give
// per-device and merged reports; a merge of 12 results (4 real devices - 2 loop, 2 zram, two spec
// sheets - each as seen from 3 hosts) gives a JUnit file python3-junitparser reads and a fleet page
// that headless chromium renders with the fleet table and the per-claim charts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::run_command;
using testing::ScratchDir;
using Json = nlohmann::json;

using storqual::testing::read_file;

using ::storqual::testing::write_text;

using storqual::testing::count;

CommandResult storqual(std::vector<std::string> args) {
  args.insert(args.begin(), STORQUAL_BINARY);
  return run_command(args);
}

const Json* find_verdict(const Json& result, const std::string& kind, const std::string& workload) {
  for (const auto& v : result["verdicts"])
    if (v.value("kind", std::string("claim")) == kind && v["workload"] == workload) return &v;
  return nullptr;
}

// Two workloads, both open-loop at a fixed rate, so the numbers are the rate and not the noise of
// a shared machine (1000 IOPS at iodepth 16 leaves 16 ms per I/O even while the machine builds);
// `rate_a` sets the first one's rate.
std::string rated_suite(int rate_a) {
  return "<suite name=\"rated\" description=\"two rated random reads\">\n"
         "  <defaults direct=\"1\" runtime=\"2s\" ramp_time=\"0s\" size=\"16m\" numjobs=\"1\"/>\n"
         "  <workload id=\"rated-a\" rw=\"randread\" bs=\"4k\" iodepth=\"16\" rate_iops=\"" +
         std::to_string(rate_a) +
         "\"/>\n"
         "  <workload id=\"rated-b\" rw=\"randread\" bs=\"4k\" iodepth=\"16\" "
         "rate_iops=\"1000\"/>\n"
         "</suite>\n";
}

TEST(Baseline, FlagsTheWorkloadRatedTwentyPercentLower) {
  ScratchDir dir("fleet-baseline");
  fs::create_directories(dir / "target");
  write_text(dir / "suite-1.xml", rated_suite(1000));
  write_text(dir / "suite-2.xml", rated_suite(800));
  const auto first = storqual({"run", "--target", (dir / "target").string(), "--suite",
                               (dir / "suite-1.xml").string(), "--out", (dir / "run1").string()});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const auto second =
      storqual({"run", "--target", (dir / "target").string(), "--suite",
                (dir / "suite-2.xml").string(), "--out", (dir / "run2").string(), "--baseline",
                (dir / "run1" / "storqual-result.json").string(), "--regression", "5%"});
  EXPECT_EQ(second.exit_code, 1) << "a regression fails the run\n" << second.out << second.err;
  EXPECT_NE(second.out.find("baseline: same"), std::string::npos) << second.out;
  const Json result = Json::parse(read_file(dir / "run2" / "storqual-result.json"));
  const Json* a = find_verdict(result, "baseline", "rated-a");
  const Json* b = find_verdict(result, "baseline", "rated-b");
  ASSERT_TRUE(a && b) << result["verdicts"].dump(2);
  EXPECT_EQ((*a)["status"], "fail") << (*a)["message"];
  EXPECT_NEAR((*a)["diff_pct"].get<double>(), -20, 3) << (*a)["message"];
  EXPECT_EQ((*b)["status"], "pass") << (*b)["message"];
  EXPECT_NEAR((*b)["diff_pct"].get<double>(), 0, 5) << (*b)["message"];
  const std::string junit = read_file(dir / "run2" / "storqual-junit.xml");
  EXPECT_NE(junit.find(" baseline: rated-a iops\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("type=\"baseline-regression\""), std::string::npos);

  // A baseline of another model is refused before anything runs.
  Json other = Json::parse(read_file(dir / "run1" / "storqual-result.json"));
  other["device"]["identity"].push_back(
      {{"field", "model"}, {"value", "Other SSD"}, {"source", "test"}});
  for (auto& row : other["device"]["identity"])
    if (row["field"] == "model") row["value"] = "Other SSD";
  write_text(dir / "other.json", other.dump());
  const auto refused = storqual({"run", "--target", (dir / "target").string(), "--suite",
                                 (dir / "suite-2.xml").string(), "--out", (dir / "run3").string(),
                                 "--baseline", (dir / "other.json").string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("Other SSD"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir / "run3" / "storqual-result.json"));
}

TEST(SeveralTargets, ParallelRunsWritePerDeviceAndMergedReports) {
  ScratchDir dir("fleet-targets");
  fs::create_directories(dir / "one");
  fs::create_directories(dir / "two");
  const auto run =
      storqual({"run", "--target", (dir / "one").string(), "--target", (dir / "two").string(),
                "--parallel", "--spec", std::string(STORQUAL_SOURCE_DIR) + "/specs/demo.xml",
                "--runtime-scale", "0.05", "--size", "16m", "--out", (dir / "out").string()});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  for (const char* label : {"one", "two"})
    for (const char* f : {"storqual-result-", "storqual-junit-", "storqual-report-"}) {
      const std::string ext = std::string(f) == "storqual-junit-"    ? ".xml"
                              : std::string(f) == "storqual-report-" ? ".html"
                                                                     : ".json";
      EXPECT_TRUE(fs::exists(dir / "out" / (std::string(f) + label + ext))) << f << label;
    }
  const Json merged = Json::parse(read_file(dir / "out" / "storqual-result.json"));
  ASSERT_EQ(merged["fleet"].size(), 2u);
  EXPECT_EQ(count(read_file(dir / "out" / "storqual-junit.xml"), "<testsuite "), 2u);
  EXPECT_NE(read_file(dir / "out" / "storqual-report.html").find("id=\"fleet-table\""),
            std::string::npos);
  EXPECT_NE(run.out.find("==== " + (dir / "one").string()), std::string::npos) << run.out;
}

// What a lot outlier and a target that did not run are, every output says the same: the console's
// RESULT line, the exit code, the merged JUnit and the fleet page's banner (docs/fleet.md). Two
// scratch files are never a lot (fewer than 3 units: their spread is shown, not judged), so their
// noise on a shared disk fails nothing; the missing target is a unit in error everywhere.
TEST(SeveralTargets, ResultLineExitCodeJUnitAndBannerAgree) {
  ScratchDir dir("fleet-agree");
  fs::create_directories(dir / "one");
  fs::create_directories(dir / "two");
  const auto missing = (dir / "missing").string();
  const auto run = storqual(
      {"run", "--target", (dir / "one").string(), "--target", (dir / "two").string(), "--target",
       missing, "--parallel", "--spec", std::string(STORQUAL_SOURCE_DIR) + "/specs/demo.xml",
       "--runtime-scale", "0.05", "--size", "16m", "--out", (dir / "out").string()});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("RESULT: ERROR, exit 2 (3 targets, 0 lot outliers)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("NOT RUN"), std::string::npos) << run.out;
  const std::string junit = read_file(dir / "out" / "storqual-junit.xml");
  EXPECT_EQ(count(junit, "<testsuite "), 3u) << junit;
  EXPECT_NE(junit.find("not run (exit 2)"), std::string::npos) << junit;
  EXPECT_EQ(count(junit, "type=\"lot-outlier\""), 0u) << "two units are not a lot";
  EXPECT_NE(read_file(dir / "out" / "storqual-report.html").find("class=\"banner ERROR\""),
            std::string::npos);
  const Json merged = Json::parse(read_file(dir / "out" / "storqual-result.json"));
  ASSERT_EQ(merged["fleet"].size(), 3u);
  EXPECT_EQ(merged["lot"]["flagged"], 0);
  EXPECT_EQ(merged["fleet"][2]["device"]["path"], missing);
}

using ::storqual::testing::chromium_missing;
using ::storqual::testing::find_chromium;
using ::storqual::testing::run_chromium;

constexpr const char* kLoopSheet =
    R"(<spec-sheet name="fleet test loop sheet" vendor="test" suite="quick" source="fleet_test">
  <match transport="loop"/>
  <claims tolerance="10%">
    <claim workload="randread-4k-qd16" metric="iops" value="100"/>
    <claim workload="seqread-1m-qd4" metric="bw" value="5MB/s"/>
    <claim workload="randread-4k-qd16" metric="lat.p99" value="200ms"/>
  </claims>
</spec-sheet>
)";
constexpr const char* kZramSheet =
    R"(<spec-sheet name="fleet test zram sheet" vendor="test" suite="quick" source="fleet_test">
  <match transport="zram"/>
  <claims tolerance="10%">
    <claim workload="randread-4k-qd16" metric="iops" value="1000"/>
    <claim workload="randwrite-4k-qd16" metric="iops" value="500"/>
    <claim workload="seqwrite-1m-qd4" metric="bw" value="20MB/s"/>
  </claims>
</spec-sheet>
)";

TEST(FleetMerge, TwelveResultsFromFourDevicesOnThreeHosts) {
  STORQUAL_REQUIRE_ROOT();
  ScratchDir dir("fleet-merge");
  fs::create_directories(dir / "specs");
  write_text(dir / "specs" / "loop.xml", kLoopSheet);
  write_text(dir / "specs" / "zram.xml", kZramSheet);
  testing::write_random_file(dir / "loop-a.img", 64 << 20, 1);
  testing::write_random_file(dir / "loop-b.img", 64 << 20, 2);
  testing::LoopDevice loop_a(dir / "loop-a.img");
  testing::LoopDevice loop_b(dir / "loop-b.img");
  testing::ZramDevice zram_a(96 << 20);
  testing::ZramDevice zram_b(96 << 20);
  const std::vector<std::string> devices = {loop_a.path(), loop_b.path(), zram_a.path(),
                                            zram_b.path()};

  // One real run of the four devices, one after another, each judged by its own sheet.
  std::vector<std::string> args = {"run"};
  for (const auto& d : devices) {
    args.push_back("--target");
    args.push_back(d);
  }
  for (const std::string& a :
       std::vector<std::string>{"--specs", (dir / "specs").string(), "--runtime-scale", "0.1",
                                "--allow-destructive", "--out", (dir / "out").string()})
    args.push_back(a);
  const auto run = storqual(args);
  ASSERT_LT(run.exit_code, 2) << run.out << run.err;

  // Three hosts: each result copied with another environment.host and serial. On host-b the
  // first zram device's randread IOPS is scaled to 30%: it still meets its modest claim, and the
  // lot (6 zram units of one model) must flag it.
  std::vector<std::string> inputs;
  for (const std::string& host : std::vector<std::string>{"host-a", "host-b", "host-c"})
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const std::string name = fs::path(devices[i]).filename().string();
      Json r = Json::parse(read_file(dir / "out" / ("storqual-result-" + name + ".json")));
      r["environment"]["host"] = host;
      bool has_serial = false;
      for (auto& row : r["device"]["identity"])
        if (row["field"] == "serial") {
          row["value"] = row["value"].get<std::string>() + host;
          has_serial = true;
        }
      if (!has_serial)
        r["device"]["identity"].push_back(
            {{"field", "serial"}, {"value", name + "-" + host}, {"source", "fleet_test copy"}});
      // The lot check leaves host-limited units out (docs/fleet.md); a machine busy with other
      // tests can limit these short runs, and this test is about the merge, not the host.
      for (auto& w : r["workloads"])
        if (w.contains("host_limit")) w["host_limit"]["limited"] = false;
      if (host == "host-b" && i == 2)
        for (auto& v : r["verdicts"])
          if (v["workload"] == "randread-4k-qd16" && v["metric"] == "iops")
            v["measured"] = v["measured"].get<double>() * 0.3;
      const auto path = dir / ("r-" + host + "-" + name + ".json");
      write_text(path, r.dump(2));
      inputs.push_back(path.string());
    }
  ASSERT_EQ(inputs.size(), 12u);
  std::vector<std::string> merge = {"report"};
  merge.insert(merge.end(), inputs.begin(), inputs.end());
  for (const std::string& a : std::vector<std::string>{"--junit", (dir / "fleet.xml").string(),
                                                       "--html", (dir / "fleet.html").string(),
                                                       "--json", (dir / "fleet.json").string()})
    merge.push_back(a);
  const auto merged = storqual(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;

  // The fleet JSON: 12 runs, and the lot found the scaled unit.
  const Json fleet = Json::parse(read_file(dir / "fleet.json"));
  ASSERT_EQ(fleet["fleet"].size(), 12u);
  EXPECT_GE(fleet["lot"]["flagged"].get<int>(), 1);
  bool found = false;
  for (const auto& g : fleet["lot"]["groups"])
    for (const auto& u : g["units"])
      if (u["flagged"] == true && u["host"] == "host-b" && g["workload"] == "randread-4k-qd16" &&
          g["metric"] == "iops")
        found = true;
  EXPECT_TRUE(found) << fleet["lot"].dump(2);

  // JUnit through python3-junitparser.
  const auto parser = run_command({"/usr/bin/python3", "-c", "import junitparser"});
  if (parser.exit_code != 0) {
    ADD_FAILURE() << "python3-junitparser is not installed (apt-get install python3-junitparser)";
  } else {
    const auto read =
        run_command({"/usr/bin/python3", "-c",
                     "import sys\nfrom junitparser import JUnitXml, Failure\n"
                     "xml = JUnitXml.fromfile(sys.argv[1])\nsuites = list(xml)\n"
                     "cases = sum(len(list(s)) for s in suites)\n"
                     "hosts = sorted(set(s.hostname for s in suites))\n"
                     "lot = [(s.hostname, c.name) for s in suites for c in s "
                     "if 'lot: ' in c.name and any(isinstance(r, Failure) for r in c.result)]\n"
                     "print(len(suites), cases, ','.join(hosts), len(lot))\n"
                     "for h, n in lot: print(h, n[n.index('lot: '):])\n",
                     (dir / "fleet.xml").string()});
    ASSERT_EQ(read.exit_code, 0) << read.err;
    std::istringstream in(read.out);
    std::size_t suites = 0, cases = 0, lot_failures = 0;
    std::string hosts;
    in >> suites >> cases >> hosts >> lot_failures;
    EXPECT_EQ(suites, 12u) << read.out;
    EXPECT_GE(cases, 12u * 4) << read.out;
    EXPECT_EQ(hosts, "host-a,host-b,host-c");
    EXPECT_GE(lot_failures, 1u);
    EXPECT_NE(read.out.find("host-b lot: randread-4k-qd16 iops"), std::string::npos) << read.out;
  }

  // The page in a real browser.
  const std::string browser = find_chromium();
  STORQUAL_REQUIRE(!browser.empty(), chromium_missing());
  const auto dom = run_chromium(browser, dir / "profile-dom", {"--dump-dom"}, dir / "fleet.html");
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_NE(dom.out.find("id=\"fleet-table\""), std::string::npos);
  EXPECT_EQ(count(dom.out, "<tr class=\"device"), 12u);
  // One chart per distinct claim of the two sheets (5), each with 6 or 12 units.
  EXPECT_EQ(count(dom.out, "data-chart=\"fleet-claim\""), 5u);
  EXPECT_EQ(count(dom.out, "<section class=\"device\""), 12u);
  EXPECT_NE(dom.out.find("LOT OUTLIER"), std::string::npos);
  EXPECT_EQ(dom.out.find("<script"), std::string::npos);
  const auto png = dir / "fleet.png";
  const auto shot =
      run_chromium(browser, dir / "profile-png",
                   {"--window-size=1200,2400", "--hide-scrollbars", "--screenshot=" + png.string()},
                   dir / "fleet.html");
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  EXPECT_GT(fs::file_size(png), 60u * 1024) << "screenshot suspiciously small: blank?";
}

}  // namespace
}  // namespace storqual
