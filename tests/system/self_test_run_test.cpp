// SPDX-License-Identifier: Apache-2.0
// A whole `storqual run` with a suite's <self-test> and a spec sheet's <health> limits, on the QEMU
// lab's captured AHCI pages (tests/data/ata/qemu-ahci, through the hidden --nvme-capture seam; a
// scratch file is the target): without --allow-self-test the self-test's testcase is skipped naming
// the flag and nothing is sent to the drive; the sheet's limit on the temperature fails the health
// testcase naming the limit and the sheet's line (its arrival limit on power-on hours holds); with
// the flag, a drive whose log shows no new entry after the test (the captured pages never change)
// makes the testcase an error, never a pass. Console, JSON, JUnit and HTML each say it.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/base/errors.hpp"
#include "tests/support/run_outputs.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::read_file;
using testing::run_command;
using testing::ScratchDir;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class SelfTestRun : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "target");
    fs::create_directories(dir_ / "pages");
    for (const auto& f : fs::directory_iterator(fs::path(STORQUAL_TEST_DATA) / "ata" / "qemu-ahci"))
      fs::copy_file(f.path(), dir_ / "pages" / f.path().filename().string());
    std::ofstream(dir_ / "pages" / "ata-sequence.txt") << "now\n";
    std::ofstream(dir_ / "suite.xml") << R"(<?xml version="1.0"?>
<suite name="self-test-run" description="a short self-test before one read">
  <defaults direct="1" ramp_time="0" iodepth="4" runtime="200ms" size="8m"/>
  <self-test id="short-before" type="short" poll="1s" timeout="5s"/>
  <workload id="randread-4k" rw="randread" bs="4k"/>
</suite>
)";
    std::ofstream(dir_ / "sheet.xml") << R"(<?xml version="1.0"?>
<spec-sheet name="new drive" vendor="test" suite="self-test-run" source="acceptance rules">
  <match model="*"/>
  <health>
    <limit figure="power_on_hours" max="24" at="arrival"/>
    <limit figure="temperature_c" max="30"/>
    <limit figure="pending_sectors" max="0"/>
  </health>
</spec-sheet>
)";
  }
  using Outputs = testing::RunOutputs;
  Outputs run(const std::string& name, const std::vector<std::string>& extra) {
    const fs::path out = dir_ / name;
    std::vector<std::string> argv = {STORQUAL_BINARY,  "run",
                                     "--target",       (dir_ / "target").string(),
                                     "--suite",        (dir_ / "suite.xml").string(),
                                     "--spec",         (dir_ / "sheet.xml").string(),
                                     "--nvme-capture", (dir_ / "pages").string(),
                                     "--out",          out.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::run_and_read_reports(argv, out);
  }
  static const Json* verdict(const Outputs& o, const std::string& workload) {
    for (const auto& v : o.json["verdicts"])
      if (v.value("workload", "") == workload) return &v;
    return nullptr;
  }
  ScratchDir dir_{"storqual-self-test-run"};
};

TEST_F(SelfTestRun, WithoutConsentSkippedAndTheSheetsArrivalLimitFailsHealth) {
  Outputs o = run("no-consent", {});
  EXPECT_EQ(o.cmd.exit_code, runner::kExitClaimFailed) << o.cmd.out << o.cmd.err;
  const Json* st = verdict(o, "short-before");
  ASSERT_TRUE(st) << o.json["verdicts"].dump(1);
  EXPECT_EQ((*st)["kind"], "health");
  EXPECT_EQ((*st)["metric"], "self-test.short");
  EXPECT_EQ((*st)["status"], "skipped");
  EXPECT_TRUE(has((*st)["message"].get<std::string>(), "pass --allow-self-test"));
  const Json* h = verdict(o, "device");
  ASSERT_TRUE(h);
  EXPECT_EQ((*h)["status"], "fail");
  // QEMU's AHCI disk: 1 power-on hour (within the arrival limit), 31 degrees, no attribute 197.
  const std::string limit =
      "temperature_c 31 above the spec sheet's limit of at most 30 (before the run; ";
  const std::string message = (*h)["message"].get<std::string>();
  EXPECT_TRUE(has(message, limit)) << message;
  EXPECT_TRUE(has(message, "sheet.xml:6)")) << message;
  EXPECT_FALSE(has(message, "power_on_hours")) << message;
  EXPECT_TRUE(has(message, "not reported by the drive: pending_sectors (")) << message;
  EXPECT_TRUE(has(message, "sheet.xml:7)")) << message;
  EXPECT_TRUE(has(o.cmd.out, "DEVICE HEALTH FAILED: ")) << o.cmd.out;
  EXPECT_TRUE(has(o.cmd.out, "DEVICE HEALTH SKIPPED: short self-test not allowed")) << o.cmd.out;
  pugi::xml_node tc =
      o.junit.select_node("//testcase[contains(@name, ' health: short-before self-test.short')]")
          .node();
  ASSERT_TRUE(tc);
  EXPECT_TRUE(tc.child("skipped"));
  EXPECT_TRUE(has(o.html, "box self-test"));
  EXPECT_TRUE(has(o.html, "temperature_c 31 above the spec sheet"));
}

TEST_F(SelfTestRun, ALogWithoutANewEntryIsAnErrorNotAPass) {
  Outputs o = run("consent", {"--allow-self-test"});
  EXPECT_EQ(o.cmd.exit_code, runner::kExitRuntime) << o.cmd.out << o.cmd.err;
  const Json* st = verdict(o, "short-before");
  ASSERT_TRUE(st) << o.json["verdicts"].dump(1);
  EXPECT_EQ((*st)["status"], "error");
  EXPECT_TRUE(has((*st)["message"].get<std::string>(), "the self-test log has no new entry"))
      << (*st)["message"];
  EXPECT_TRUE(has(o.cmd.out, "short-before: short self-test (ata): unknown: the self-test log"))
      << o.cmd.out;
  ASSERT_TRUE(o.json["workloads"].is_array());
  EXPECT_EQ(o.json["workloads"][0]["self_test"]["transport"], "ata");
}

}  // namespace
}  // namespace storqual
