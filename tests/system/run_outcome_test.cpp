// SPDX-License-Identifier: Apache-2.0
// What a whole `storqual run` says when the device, not a claim, is the problem, in every output
// (console, JUnit, JSON, HTML) and the exit code: SMART health that degraded during the run (the
// captured NVMe pages of tests/data/nvme, or the ATA pages of tests/data/ata, through the hidden
// --nvme-capture seam) fails it; a device that completed no I/O (the fault engine's latency and
// stuck faults through --inject-fault) is an error of the run, never a failed claim. A scratch
// file is the target.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/cli/cli.hpp"
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

using Outputs = testing::RunOutputs;

class RunOutcome : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "target");
    std::ofstream(dir_ / "suite.xml") << R"(<?xml version="1.0"?>
<suite name="outcome" description="one read, one write">
  <defaults direct="1" ramp_time="0" iodepth="4" runtime="300ms" size="8m" io_timeout="3s"/>
  <workload id="randread-4k" rw="randread" bs="4k"/>
  <workload id="randwrite-4k" rw="randwrite" bs="4k"/>
</suite>
)";
    std::ofstream(dir_ / "sheet.xml") << R"(<?xml version="1.0"?>
<spec-sheet name="outcome sheet" vendor="test" suite="outcome" source="test">
  <match model="*"/>
  <claims tolerance="10%">
    <claim workload="randread-4k" metric="iops" value="10"/>
    <claim workload="randwrite-4k" metric="iops" value="10"/>
  </claims>
</spec-sheet>
)";
  }
  Outputs run(const std::string& name, const std::vector<std::string>& extra) {
    const fs::path out = dir_ / name;
    std::vector<std::string> argv = {STORQUAL_BINARY, "run",
                                     "--target",      (dir_ / "target").string(),
                                     "--suite",       (dir_ / "suite.xml").string(),
                                     "--spec",        (dir_ / "sheet.xml").string(),
                                     "--out",         out.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return testing::run_and_read_reports(argv, out);
  }
  ScratchDir dir_{"storqual-outcome"};
};

const Json* verdict(const Outputs& o, const std::string& kind, const std::string& workload) {
  if (!o.json.is_object()) return nullptr;
  for (const auto& v : o.json["verdicts"])
    if (v.value("kind", std::string("claim")) == kind && v.value("workload", "") == workload)
      return &v;
  return nullptr;
}

TEST_F(RunOutcome, HealthDegradedDuringTheRunIsAFailedTestcaseOfItsOwnAndExit1) {
  // smart-before.bin: no warning, 0 media errors; smart-after.bin: 0x04 and 3 media errors.
  Outputs o = run("health", {"--nvme-capture", (fs::path(STORQUAL_TEST_DATA) / "nvme").string()});
  EXPECT_EQ(o.cmd.exit_code, runner::kExitClaimFailed) << o.cmd.out << o.cmd.err;
  const std::string warning = "new critical warning 0x04: reliability degraded";
  // Console: named in words, not only a table row.
  EXPECT_TRUE(has(o.cmd.out, "DEVICE HEALTH FAILED: ")) << o.cmd.out;
  EXPECT_TRUE(has(o.cmd.out, warning)) << o.cmd.out;
  EXPECT_TRUE(has(o.cmd.out, "media errors 0 -> 3")) << o.cmd.out;
  // JSON: a verdict of kind health, failed, with the finding; the claims themselves passed.
  const Json* h = verdict(o, "health", "device");
  ASSERT_TRUE(h) << o.json["verdicts"].dump(1);
  EXPECT_EQ((*h)["status"], "fail");
  EXPECT_TRUE(has((*h)["message"].get<std::string>(), warning));
  ASSERT_TRUE(verdict(o, "claim", "randread-4k"));
  EXPECT_EQ((*verdict(o, "claim", "randread-4k"))["status"], "pass");
  // JUnit: its own testcase with a <failure> of type device-health.
  pugi::xml_node tc =
      o.junit.select_node("//testcase[contains(@name, ' health: device smart')]").node();
  ASSERT_TRUE(tc);
  EXPECT_STREQ(tc.child("failure").attribute("type").value(), "device-health");
  EXPECT_TRUE(has(tc.child("failure").attribute("message").value(), warning));
  // HTML.
  EXPECT_TRUE(has(o.html, warning));
}

TEST_F(RunOutcome, HealthUnchangedPassesItsTestcase) {
  // Without new findings the health testcase passes and the run exits 0: the verdict is real.
  ScratchDir pages("storqual-outcome-pages");
  for (const char* f : {"identify-ctrl.bin", "identify-ns.bin"})
    fs::copy_file(fs::path(STORQUAL_TEST_DATA) / "nvme" / f, pages / f);
  fs::copy_file(fs::path(STORQUAL_TEST_DATA) / "nvme" / "smart-before.bin",
                pages / "smart-before.bin");
  fs::copy_file(fs::path(STORQUAL_TEST_DATA) / "nvme" / "smart-before.bin",
                pages / "smart-after.bin");
  Outputs o = run("healthy", {"--nvme-capture", pages.path().string()});
  EXPECT_EQ(o.cmd.exit_code, runner::kExitPass) << o.cmd.out << o.cmd.err;
  const Json* h = verdict(o, "health", "device");
  ASSERT_TRUE(h);
  EXPECT_EQ((*h)["status"], "pass");
  EXPECT_FALSE(has(o.cmd.out, "DEVICE HEALTH"));
}

TEST_F(RunOutcome, AtaDriveWithGrownDefectsFailsTheHealthTestcaseWithEachReasonNamed) {
  // tests/data/ata/failing (make_pages.py): before 2 reallocated, 0 pending; after 40 and 8, the
  // reallocated attribute below its threshold, SMART status failing, 12 UDMA CRC errors.
  Outputs o =
      run("ata", {"--nvme-capture", (fs::path(STORQUAL_TEST_DATA) / "ata" / "failing").string()});
  EXPECT_EQ(o.cmd.exit_code, runner::kExitClaimFailed) << o.cmd.out << o.cmd.err;
  const std::string grown = "grown reallocated sectors (5) 2 -> 40 (+38)";
  EXPECT_TRUE(has(o.cmd.out, "DEVICE HEALTH FAILED: ")) << o.cmd.out;
  EXPECT_TRUE(has(o.cmd.out, grown)) << o.cmd.out;
  const Json* h = verdict(o, "health", "device");
  ASSERT_TRUE(h) << o.json["verdicts"].dump(1);
  EXPECT_EQ((*h)["status"], "fail");
  const std::string message = (*h)["message"].get<std::string>();
  for (const char* reason :
       {"SMART status failing", "grown pending sectors (197) 0 -> 8",
        "pre-failure attribute 5 Reallocated_Sector_Ct at or below its threshold",
        "UDMA CRC errors 0 -> 12 (+12): the cable or backplane, not the drive"})
    EXPECT_TRUE(has(message, reason)) << reason << "\n" << message;
  // The mid-run reading saw the growth first.
  EXPECT_TRUE(has(message, grown + " (after workload 1 of 2)")) << message;
  pugi::xml_node tc =
      o.junit.select_node("//testcase[contains(@name, ' health: device smart')]").node();
  ASSERT_TRUE(tc);
  EXPECT_STREQ(tc.child("failure").attribute("type").value(), "device-health");
  EXPECT_TRUE(has(tc.child("failure").attribute("message").value(), grown));
  EXPECT_TRUE(has(o.html, "grown reallocated sectors (5) 2 -&gt; 40 (+38)"));
  // The ATA rows before and after, not NVMe's, and no wear section from an NVMe log.
  EXPECT_TRUE(has(o.json.dump(), "attr.197.Current_Pending_Sector")) << o.json.dump(1);
  EXPECT_FALSE(o.json["device"].contains("wear") && !o.json["device"]["wear"].is_null());
}

TEST_F(RunOutcome, AtaDriveWithOnlyCrcErrorsPassesAndNamesTheCable) {
  ScratchDir pages("storqual-outcome-ata");
  for (const auto& e : fs::directory_iterator(fs::path(STORQUAL_TEST_DATA) / "ata" / "failing"))
    fs::copy_file(e.path(), pages / e.path().filename());
  std::ofstream(pages / "ata-sequence.txt") << "before\ncable\n";
  Outputs o = run("ata-cable", {"--nvme-capture", pages.path().string()});
  EXPECT_EQ(o.cmd.exit_code, runner::kExitPass) << o.cmd.out << o.cmd.err;
  const Json* h = verdict(o, "health", "device");
  ASSERT_TRUE(h) << o.json["verdicts"].dump(1);
  EXPECT_EQ((*h)["status"], "pass");
  EXPECT_TRUE(has((*h)["message"].get<std::string>(), "the cable or backplane, not the drive"))
      << (*h)["message"];
}

TEST_F(RunOutcome, SasDrivePredictingAFailureFailsTheHealthTestcase) {
  // tests/data/scsi/sas (make_pages.py): "failing" has a failure prediction, 3 new uncorrected
  // read errors, a failed self-test, 3 grown defects and REQUEST SENSE's failure prediction.
  ScratchDir pages("storqual-outcome-scsi");
  for (const auto& e : fs::directory_iterator(fs::path(STORQUAL_TEST_DATA) / "scsi" / "sas"))
    fs::copy_file(e.path(), pages / e.path().filename());
  std::ofstream(pages / "scsi-sequence.txt") << "before\nfailing\n";
  Outputs o = run("scsi", {"--nvme-capture", pages.path().string()});
  EXPECT_EQ(o.cmd.exit_code, runner::kExitClaimFailed) << o.cmd.out << o.cmd.err;
  const Json* h = verdict(o, "health", "device");
  ASSERT_TRUE(h) << o.json["verdicts"].dump(1);
  EXPECT_EQ((*h)["status"], "fail");
  const std::string message = (*h)["message"].get<std::string>();
  EXPECT_TRUE(has(message, "informational exception: failure predicted (ASC 5dh ASCQ 10h)"))
      << message;
  EXPECT_TRUE(has(message, "new read uncorrected errors 0 -> 3 (+3) (after workload 1 of 2)"))
      << message;
  EXPECT_TRUE(has(message, "new grown defects 0 -> 3 (+3) (after workload 1 of 2)")) << message;
  EXPECT_TRUE(has(message,
                  "REQUEST SENSE: failure prediction threshold exceeded (ASC 5dh ASCQ "
                  "10h) (after workload 1 of 2)"))
      << message;
  EXPECT_TRUE(has(o.cmd.out, "DEVICE HEALTH FAILED: ")) << o.cmd.out;
  EXPECT_TRUE(has(o.json.dump(), "read.uncorrected")) << o.json.dump(1);
}

// The workload with no completions is in error in every output, and no claim on it failed.
void expect_stall_error(const Outputs& o, const std::string& id, const std::string& reason) {
  EXPECT_EQ(o.cmd.exit_code, runner::kExitRuntime) << o.cmd.out << o.cmd.err;
  const std::string console = o.cmd.out + o.cmd.err;
  EXPECT_TRUE(has(console, id + ": error: ")) << console;
  EXPECT_TRUE(has(console, reason)) << console;
  const Json* v = verdict(o, "claim", id);
  ASSERT_TRUE(v) << o.json.dump(1);
  EXPECT_EQ((*v)["status"], "error") << (*v)["message"];
  EXPECT_TRUE(has((*v)["message"].get<std::string>(), reason)) << (*v)["message"];
  for (const auto& w : o.json["workloads"]) {
    if (w["id"] != id) continue;
    std::string errors;
    for (const auto& e : w["errors"]) errors += e.get<std::string>();
    EXPECT_TRUE(has(errors, reason)) << errors;
  }
  pugi::xml_node tc =
      o.junit.select_node(("//testcase[contains(@name, ' " + id + " iops')]").c_str()).node();
  ASSERT_TRUE(tc);
  EXPECT_TRUE(tc.child("error")) << "an <error>, not a <failure>";
  EXPECT_FALSE(tc.child("failure"));
  EXPECT_TRUE(has(tc.child("error").attribute("message").value(), reason));
  EXPECT_TRUE(has(o.html, reason));
  EXPECT_EQ(o.json["exit_code"].get<int>(), runner::kExitRuntime);
}

TEST_F(RunOutcome, ZeroCompletionsIsAnErrorNotAFailedClaim) {
  // Every I/O takes 2 s (within io_timeout), the workload measures 300 ms: it ends with nothing
  // completed, as a stalled emulated NVMe did. Before, this was "measured 0 IOPS", a failed claim.
  Outputs o = run("stalled", {"--inject-fault", "latency:base=2s"});
  expect_stall_error(o, "randread-4k", "the device stalled: 0 I/Os completed in");
}

TEST_F(RunOutcome, StuckIoIsAnErrorNotAFailedClaim) {
  // Every read stuck (never completes): io_timeout (3 s) ends it as an error; the write goes on.
  Outputs o = run("stuck", {"--inject-fault", "stuck:dir=read"});
  expect_stall_error(o, "randread-4k", "did not complete within io_timeout 3s");
  const Json* w = verdict(o, "claim", "randwrite-4k");
  ASSERT_TRUE(w);
  EXPECT_EQ((*w)["status"], "pass") << (*w)["message"];
}

}  // namespace
}  // namespace storqual
