// SPDX-License-Identifier: Apache-2.0
// The JUnit files of real runs as strict CI readers take them: every file (pass, fail, error,
// skipped, two devices in one run, the same device run twice and merged by `storqual report`, a
// spec name with dots) validates against the Jenkins xUnit plugin's junit-10.xsd and the JUnit 5
// project's jenkins-junit.xsd, and python3-junitparser finds every testcase unique and named after
// its device (tests/support/junit_check.*). Interrupted runs are checked in run_e2e_test. Runs go
// to scratch files in directories, so no root is needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/junit_check.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/support/tools.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::CommandResult;
using testing::read_file;
using testing::run_command;
using testing::ScratchDir;

using ::storqual::testing::write_text;

CommandResult storqual(std::vector<std::string> args) {
  args.insert(args.begin(), STORQUAL_BINARY);
  return run_command(args);
}

// Three short workloads, rated so that the figures hold on a busy host; no claim names the third.
constexpr const char* kSuite = R"(<?xml version="1.0"?>
<suite name="junit-readers" description="three short rated workloads">
  <defaults direct="1" runtime="500ms" ramp_time="0s" size="8m" iodepth="4"/>
  <workload id="randread-4k" rw="randread" bs="4k" rate_iops="500"/>
  <workload id="randwrite-4k" rw="randwrite" bs="4k" rate_iops="500"/>
  <workload id="seqread-64k" rw="read" bs="64k" rate_iops="200"/>
</suite>
)";

// `name` goes into the sheet's name (dots and all); the claims: one met, one not met (unless
// `all_pass`). (A claim the suite cannot judge is refused before the run: docs/formats.md.) The
// third workload is measured only: a skipped testcase.
std::string sheet(const std::string& name, bool all_pass) {
  return "<?xml version=\"1.0\"?>\n<spec-sheet name=\"" + name +
         "\" vendor=\"test\" suite=\"junit-readers\" source=\"junit_readers_test\">\n"
         "  <match model=\"*\"/>\n  <claims tolerance=\"10%\">\n"
         "    <claim workload=\"randread-4k\" metric=\"iops\" value=\"100\"/>\n"
         "    <claim workload=\"randwrite-4k\" metric=\"iops\" value=\"" +
         std::string(all_pass ? "100" : "5000000") +
         "\"/>\n"
         "  </claims>\n</spec-sheet>\n";
}

class JunitReaders : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string missing = testing::junit_tools_missing(); !missing.empty())
      GTEST_FAIL() << "cannot run: " << missing << " is missing: the JUnit files are not checked";
    write_text(dir_ / "suite.xml", kSuite);
    for (const char* t : {"dev-a", "dev-b"}) fs::create_directories(dir_ / t);
  }

  // `storqual run` on the targets with `sheet_file`; returns the exit code.
  int run(const std::vector<std::string>& targets, const fs::path& sheet_file, const fs::path& out,
          const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"run"};
    for (const auto& t : targets) {
      args.push_back("--target");
      args.push_back((dir_ / t).string());
    }
    for (const std::string& a :
         std::vector<std::string>{"--suite", (dir_ / "suite.xml").string(), "--spec",
                                  sheet_file.string(), "--out", out.string()})
      args.push_back(a);
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = storqual(args);
    EXPECT_LT(r.exit_code, 4) << r.out << r.err;
    return r.exit_code;
  }

  // Validates the files, prints what the readers said (the note of issue 15 quotes it).
  void expect_valid(const std::vector<fs::path>& files) {
    const auto v = testing::validate_junit(files);
    for (const auto& line : v.lines) std::cout << "  " << line << "\n";
    EXPECT_TRUE(v.valid) << "see the lines above";
  }

  ScratchDir dir_{"junit-readers"};
};

TEST_F(JunitReaders, EveryFileOfEveryKindOfRunValidatesAndNamesItsDevice) {
  write_text(dir_ / "pass.xml", sheet("junit pass", true));
  write_text(dir_ / "fail.xml", sheet("junit fail", false));
  write_text(dir_ / "dotted.xml", sheet("Example NVMe SSD 1.92TB v2.1", false));
  EXPECT_EQ(run({"dev-a"}, dir_ / "pass.xml", dir_ / "pass"), 0);
  EXPECT_GE(run({"dev-a"}, dir_ / "fail.xml", dir_ / "fail"), 1);
  // An injected EIO on every write: the write workload is in error, its claim an <error>.
  EXPECT_EQ(run({"dev-a"}, dir_ / "pass.xml", dir_ / "error", {"--inject-fault", "fail:dir=write"}),
            3);
  EXPECT_GE(run({"dev-a"}, dir_ / "dotted.xml", dir_ / "dotted"), 1);
  EXPECT_GE(run({"dev-a", "dev-b"}, dir_ / "fail.xml", dir_ / "two"), 1);
  // The same device again, then both runs of it merged.
  EXPECT_GE(run({"dev-a"}, dir_ / "fail.xml", dir_ / "again"), 1);
  const fs::path merged = dir_ / "merged.xml";
  const auto report = storqual({"report", (dir_ / "fail" / "storqual-result.json").string(),
                                (dir_ / "again" / "storqual-result.json").string(), "--junit",
                                merged.string(), "--json", (dir_ / "merged.json").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;

  // The lot: the two runs of dev-a as one unit "SN-1" of model "Test SSD", dev-b as "SN-2".
  std::vector<std::string> lot_args = {"report"};
  const std::vector<std::pair<fs::path, std::string>> units = {
      {dir_ / "fail" / "storqual-result.json", "SN-1"},
      {dir_ / "again" / "storqual-result.json", "SN-1"},
      {dir_ / "two" / "storqual-result-dev-b.json", "SN-2"}};
  for (std::size_t i = 0; i < units.size(); ++i) {
    Json r = Json::parse(read_file(units[i].first));
    auto& identity = r["device"]["identity"];
    identity.erase(std::remove_if(identity.begin(), identity.end(),
                                  [](const Json& row) {
                                    return row["field"] == "model" || row["field"] == "serial";
                                  }),
                   identity.end());
    identity.push_back({{"field", "model"}, {"value", "Test SSD"}, {"source", "test copy"}});
    identity.push_back({{"field", "serial"}, {"value", units[i].second}, {"source", "test copy"}});
    const fs::path copy = dir_ / ("unit-" + std::to_string(i) + ".json");
    write_text(copy, r.dump(2));
    lot_args.push_back(copy.string());
  }
  const fs::path lot = dir_ / "lot.xml";
  for (const std::string& a :
       std::vector<std::string>{"--junit", lot.string(), "--json", (dir_ / "lot.json").string()})
    lot_args.push_back(a);
  const auto lot_report = storqual(lot_args);
  ASSERT_EQ(lot_report.exit_code, 0) << lot_report.err;

  const std::vector<fs::path> files = {dir_ / "pass" / "storqual-junit.xml",
                                       dir_ / "fail" / "storqual-junit.xml",
                                       dir_ / "error" / "storqual-junit.xml",
                                       dir_ / "dotted" / "storqual-junit.xml",
                                       dir_ / "two" / "storqual-junit.xml",
                                       dir_ / "two" / "storqual-junit-dev-a.xml",
                                       dir_ / "two" / "storqual-junit-dev-b.xml",
                                       merged,
                                       lot};
  expect_valid(files);

  // What each file must hold, read as text (the readers' view is in junit_check.py).
  const std::string pass = read_file(files[0]);
  EXPECT_NE(pass.find("<skipped>"), std::string::npos) << pass;
  EXPECT_NE(pass.find("measured only"), std::string::npos)
      << "a workload without a claim is marked as such";
  const std::string fail = read_file(files[1]);
  EXPECT_NE(fail.find("type=\"claim-not-met\""), std::string::npos);
  EXPECT_NE(fail.find("spec sheet: " + (dir_ / "fail.xml").string() + ":6"), std::string::npos)
      << "the failure body points at the claim's line\n"
      << fail;
  EXPECT_NE(read_file(files[2]).find("<error "), std::string::npos);
  const std::string dotted = read_file(files[3]);
  EXPECT_NE(dotted.find("classname=\"storqual.Example NVMe SSD 1_92TB v2_1."), std::string::npos)
      << dotted;
  EXPECT_EQ(testing::count(read_file(files[4]), "<testsuite "), 2u);

  // The merge keeps both runs of one device as two suites, and the lot (one unit) compares
  // nothing: a unit is never compared with itself.
  const std::string m = read_file(merged);
  EXPECT_EQ(testing::count(m, "<testsuite "), 2u) << m;
  const Json fleet = Json::parse(read_file(dir_ / "merged.json"));
  EXPECT_EQ(fleet["lot"]["comparisons"], 0) << fleet["lot"].dump(2);
  EXPECT_EQ(m.find("lot: "), std::string::npos) << "the lot compared a unit with itself";

  // Two units of "Test SSD" (SN-1 twice, SN-2): each comparison is over 2 units, not 3, and the
  // lot testcases go to SN-1's latest run and to SN-2.
  const Json lot_fleet = Json::parse(read_file(dir_ / "lot.json"));
  ASSERT_GE(lot_fleet["lot"]["groups"].size(), 1u) << lot_fleet["lot"].dump(2);
  for (const auto& g : lot_fleet["lot"]["groups"]) EXPECT_EQ(g["units"].size(), 2u) << g.dump(2);
  const std::string l = read_file(lot);
  EXPECT_EQ(testing::count(l, "<testsuite "), 3u);
  EXPECT_NE(l.find("name=\"SN-1 lot: randread-4k iops\""), std::string::npos) << l;
  EXPECT_NE(l.find("name=\"SN-2 lot: randread-4k iops\""), std::string::npos) << l;
  EXPECT_EQ(testing::count(l, "lot: randread-4k iops\""), 2u) << l;
}

TEST_F(JunitReaders, RichFormCarriesFileLineAndPropertiesAndSaysSo) {
  write_text(dir_ / "fail.xml", sheet("junit rich", false));
  EXPECT_GE(run({"dev-a"}, dir_ / "fail.xml", dir_ / "rich", {"--junit-rich"}), 1);
  const fs::path file = dir_ / "rich" / "storqual-junit.xml";
  const std::string xml = read_file(file);
  EXPECT_NE(xml.find("file=\"" + (dir_ / "fail.xml").string() + "\" line=\"6\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"claimed\" value=\"100\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<skipped message="), std::string::npos) << xml;
  // The rich form is what the strict schemas reject (docs/reports.md says so).
  const auto strict = testing::validate_against(file, "junit-10.xsd");
  for (const auto& line : strict.lines) std::cout << "  junit-10.xsd: " << line << "\n";
  EXPECT_FALSE(strict.valid);
}

}  // namespace
}  // namespace storqual
