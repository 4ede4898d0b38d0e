// SPDX-License-Identifier: Apache-2.0
// Nothing unjudged passes, and a PASS says what made it weaker (docs/reports.md, "Deviations" and
// "Measured only"), through the real binary: a claim on a workload the suite lacks is refused by
// `check` and by `run` before anything is measured; `--specs DIR` with no matching sheet is refused
// with the device's identity and the nearest sheets, unless `--measure-only`, whose JUnit has no
// passed testcase (read by python3-junitparser); a claim skipped at run time (bs 512 on a 4096-byte
// sector loop device) makes the run incomplete; a page-cache-backed loop device run with
// --runtime-scale and --size lists its deviations in the console, JSON, JUnit and HTML, and
// `--strict` makes that an exit of 3.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/junit_check.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::LoopDevice;
using testing::LoopOptions;
using testing::read_file;
using testing::run_command;
using testing::ScratchDir;

CommandResult storqual(std::vector<std::string> args) {
  args.insert(args.begin(), STORQUAL_BINARY);
  return run_command(args);
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

const fs::path kSource = STORQUAL_SOURCE_DIR;

// The demo sheet with one claim's workload misspelt (qd61 for qd16).
std::string typo_sheet() {
  std::string s = read_file(kSource / "specs" / "demo.xml");
  const std::string right = "workload=\"randread-4k-qd16\"  metric=\"iops\"";
  const auto at = s.find(right);
  EXPECT_NE(at, std::string::npos) << "specs/demo.xml changed; update this test";
  if (at != std::string::npos)
    s.replace(at, right.size(), "workload=\"randread-4k-qd61\"  metric=\"iops\"");
  return s;
}

TEST(NothingUnjudgedPasses, AClaimOnAWorkloadTheSuiteLacksIsAnErrorInCheck) {
  ScratchDir dir;
  write(dir.path() / "typo.xml", typo_sheet());
  const auto r = storqual({"check", (dir.path() / "typo.xml").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("typo.xml:12:5: claim on workload 'randread-4k-qd61', which suite 'quick' "
                       "lacks; did you mean 'randread-4k-qd16'?"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("ok:"), std::string::npos) << "a refused sheet is not 'ok': " << r.out;
  const auto good = storqual({"check", (kSource / "specs" / "demo.xml").string()});
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
}

TEST(NothingUnjudgedPasses, AClaimOnAWorkloadTheSuiteLacksStopsRunBeforeMeasuring) {
  ScratchDir dir;
  write(dir.path() / "typo.xml", typo_sheet());
  fs::create_directories(dir.path() / "target");
  const auto r =
      storqual({"run", "--target", (dir.path() / "target").string(), "--spec",
                (dir.path() / "typo.xml").string(), "--out", (dir.path() / "out").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot judge"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("randread-4k-qd61"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "storqual-result.json"))
      << "nothing is measured or reported";
}

TEST(NothingUnjudgedPasses, AnotherSuiteThatLacksTheClaimsWorkloadsIsRefusedToo) {
  ScratchDir dir;
  fs::create_directories(dir.path() / "target");
  const auto r = storqual({"run", "--target", (dir.path() / "target").string(), "--spec",
                           (kSource / "specs" / "demo.xml").string(), "--suite", "client", "--out",
                           (dir.path() / "out").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--suite client replaced the sheet's suite 'quick'"), std::string::npos)
      << r.err;
}

class UnjudgedOnLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    STORQUAL_REQUIRE_ROOT();
    write_backing(256ull << 20);
  }
  void write_backing(std::uint64_t size) {
    std::ofstream(backing_, std::ios::binary | std::ios::trunc).close();
    fs::resize_file(backing_, size);
  }
  ScratchDir dir_;
  fs::path backing_ = dir_.path() / "backing.img";
};

TEST_F(UnjudgedOnLoop, SpecsWithoutAMatchingSheetIsAnErrorUnlessMeasureOnly) {
  LoopDevice loop(backing_);
  const auto refused = storqual(
      {"run", "--target", loop.path(), "--specs", (kSource / "specs").string(), "--suite", "quick",
       "--runtime-scale", "0.05", "--size", "16m", "--out", (dir_.path() / "refused").string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("no spec sheet in"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("transport 'loop', target 'block'"), std::string::npos)
      << "names the device's identity: " << refused.err;
  EXPECT_NE(refused.err.find("the nearest:"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("specs/demo.xml"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--measure-only"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir_.path() / "refused" / "storqual-result.json"));

  const fs::path out = dir_.path() / "measured";
  const auto run =
      storqual({"run", "--target", loop.path(), "--specs", (kSource / "specs").string(),
                "--measure-only", "--suite", "quick", "--allow-destructive", "--runtime-scale",
                "0.05", "--size", "16m", "--out", out.string()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("RESULT: MEASURED ONLY"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("measured only: no spec sheet judged this run"), std::string::npos);
  const auto json = nlohmann::json::parse(read_file(out / "storqual-result.json"));
  EXPECT_TRUE(json["measure_only"].get<bool>());
  const std::string html = read_file(out / "storqual-report.html");
  EXPECT_NE(html.find("banner MEASURED"), std::string::npos);
  EXPECT_NE(html.find("MEASURED ONLY"), std::string::npos);

  // A CI reader: python3-junitparser finds no passed testcase, only skipped ones.
  if (!testing::junit_tools_missing().empty())
    GTEST_FAIL() << "cannot run: " << testing::junit_tools_missing()
                 << " is missing: the JUnit reader";
  const std::string script =
      "import sys, junitparser\n"
      "x = junitparser.JUnitXml.fromfile(sys.argv[1])\n"
      "suites = [x] if isinstance(x, junitparser.TestSuite) else list(x)\n"
      "cases = [c for s in suites for c in s]\n"
      "passed = [c.name for c in cases if c.is_passed]\n"
      "skipped = [c.name for c in cases if c.is_skipped]\n"
      "print(len(cases), len(passed), len(skipped))\n"
      "print('\\n'.join(passed))\n";
  const auto reader =
      run_command({"/usr/bin/python3", "-c", script, (out / "storqual-junit.xml").string()});
  ASSERT_EQ(reader.exit_code, 0) << reader.out << reader.err;
  int cases = -1, passed = -1, skipped = -1;
  std::istringstream counts(reader.out);
  counts >> cases >> passed >> skipped;
  EXPECT_GE(cases, 4) << reader.out;
  EXPECT_EQ(passed, 0) << "passed testcases for figures nobody claimed:\n" << reader.out;
  EXPECT_EQ(skipped, cases) << reader.out;
}

// A 4096-byte-sector loop device and a suite whose one claimed workload has bs 512: the workload
// cannot run there (skipped with the reason), so the claim is not judged: incomplete, exit 3.
TEST_F(UnjudgedOnLoop, AClaimSkippedAtRunTimeMakesTheRunIncomplete) {
  LoopDevice loop(backing_, LoopOptions{.sector_size = 4096});
  write(dir_.path() / "suite.xml",
        "<suite name=\"half-k\">\n"
        "  <workload id=\"randread-512\" rw=\"randread\" bs=\"512\" iodepth=\"4\" runtime=\"1s\" "
        "size=\"16m\"/>\n"
        "  <workload id=\"randread-4k\" rw=\"randread\" bs=\"4k\" iodepth=\"4\" runtime=\"1s\" "
        "size=\"16m\"/>\n"
        "</suite>\n");
  write(dir_.path() / "sheet.xml",
        "<spec-sheet name=\"half-k sheet\" vendor=\"any\" suite=\"suite.xml\">\n"
        "  <match transport=\"loop\"/>\n"
        "  <claims tolerance=\"10%\">\n"
        "    <claim workload=\"randread-512\" metric=\"iops\" value=\"1\"/>\n"
        "    <claim workload=\"randread-4k\" metric=\"iops\" value=\"1\"/>\n"
        "  </claims>\n"
        "</spec-sheet>\n");
  const fs::path out = dir_.path() / "out";
  // The backing file was never written: its reads are accepted as they are (this is about the
  // claim that could not be judged, not about reads of written data, read_fill_test.cpp).
  const auto r =
      storqual({"run", "--target", loop.path(), "--spec", (dir_.path() / "sheet.xml").string(),
                "--out", out.string(), "--accept-deviation", "unwritten-reads"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("RESULT: INCOMPLETE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("randread-512: skipped: bs 512 is not a multiple"), std::string::npos)
      << r.out;
  const auto json = nlohmann::json::parse(read_file(out / "storqual-result.json"));
  EXPECT_EQ(json["exit_code"].get<int>(), 3);
}

// --runtime-scale 0.05 --size 32m (the quick suite says 64m) on a loop device without direct I/O,
// its backing file in the page cache, judged by a sheet of modest claims that matches it: every
// output lists the three deviations; --strict turns the run into exit 3.
TEST_F(UnjudgedOnLoop, DeviationsOfAPageCacheLoopDeviceAreInEveryOutputAndStrictFailsThem) {
  LoopDevice loop(backing_, LoopOptions{.direct_io = false});
  write(dir_.path() / "sheet.xml",
        "<spec-sheet name=\"loop sheet\" vendor=\"any\" suite=\"quick\">\n"
        "  <match transport=\"loop\"/>\n"
        "  <claims tolerance=\"10%\">\n"
        "    <claim workload=\"randread-4k-qd16\" metric=\"iops\" value=\"10\"/>\n"
        "    <claim workload=\"seqread-1m-qd4\" metric=\"bw\" value=\"1MB/s\"/>\n"
        "  </claims>\n"
        "</spec-sheet>\n");
  const std::vector<std::string> base = {"run",
                                         "--target",
                                         loop.path(),
                                         "--spec",
                                         (dir_.path() / "sheet.xml").string(),
                                         "--runtime-scale",
                                         "0.05",
                                         "--size",
                                         "32m",
                                         "--allow-destructive"};
  std::vector<std::string> args = base;
  const fs::path out = dir_.path() / "out";
  args.insert(args.end(), {"--out", out.string()});
  const auto r = storqual(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("RESULT: PASS with "), std::string::npos) << r.out;
  for (const char* text :
       {"deviation: runtimes scaled by 0.05 (--runtime-scale 0.05)",
        "deviation: region 32.00 MiB (--size 32m) instead of the suite's 64.00 MiB",
        "without direct I/O (loop_direct_io=no)"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;

  const auto json = nlohmann::json::parse(read_file(out / "storqual-result.json"));
  std::set<std::string> kinds;
  for (const auto& d : json["deviations"]) kinds.insert(d["kind"].get<std::string>());
  for (const char* kind : {"runtime", "region", "memory-target"})
    EXPECT_TRUE(kinds.count(kind)) << kind << " missing in " << json["deviations"].dump();
  EXPECT_EQ(json["spec"]["suite_sha256"].get<std::string>().size(), 64u);

  const std::string junit = read_file(out / "storqual-junit.xml");
  EXPECT_NE(junit.find("name=\"storqual.deviations\" value=\"" +
                       std::to_string(json["deviations"].size()) + "\""),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("value=\"memory-target: loop device"), std::string::npos);
  EXPECT_NE(junit.find("deviation: runtimes scaled by 0.05"), std::string::npos)
      << "the affected testcases carry it";
  EXPECT_NE(junit.find("name=\"suite.sha256\""), std::string::npos);

  const std::string html = read_file(out / "storqual-report.html");
  EXPECT_NE(html.find("PASS with " + std::to_string(json["deviations"].size()) + " deviation"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"deviations\""), std::string::npos);
  EXPECT_NE(html.find("runtimes scaled by 0.05"), std::string::npos);
  EXPECT_NE(html.find("suite sha256"), std::string::npos);

  args = base;
  args.insert(args.end(), {"--strict", "--out", (dir_.path() / "strict").string()});
  const auto strict = storqual(args);
  EXPECT_EQ(strict.exit_code, 3) << strict.out << strict.err;
  EXPECT_NE(strict.out.find("--strict:"), std::string::npos) << strict.out;
  EXPECT_NE(strict.out.find("RESULT: INCOMPLETE with "), std::string::npos) << strict.out;
}

}  // namespace
}  // namespace storqual
