// SPDX-License-Identifier: Apache-2.0
// `storqual run ... | head -n 1`: head exits after the first line, and every later console write
// meets a closed pipe. The run must go on, write its JSON, JUnit and HTML, and exit with its own
// code, not die of SIGPIPE (141) with no reports (runner/qualification/signals.hpp). On a scratch
// directory and, as root, on a loop device the test makes.
#include <gtest/gtest.h>
#include <signal.h>
#include <pugixml.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_devices.hpp"

namespace storqual {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::run_command;
using testing::run_shell;
using testing::ScratchDir;

class BrokenPipe : public ::testing::Test {
 protected:
  void SetUp() override {
    // An ignored SIGPIPE would be inherited by the child and hide the bug: the default it is.
    ::signal(SIGPIPE, SIG_DFL);
    fs::create_directories(dir_ / "target");
    // Two workloads of 1.5 s: the progress lines flush the console every second, so several
    // writes come after head has gone, the last ones before the reports are written.
    std::ofstream(dir_ / "suite.xml") << R"(<?xml version="1.0"?>
<suite name="pipe" description="two reads">
  <defaults direct="1" ramp_time="0" iodepth="4" runtime="1500ms" size="8m"/>
  <workload id="randread-4k" rw="randread" bs="4k"/>
  <workload id="read-64k" rw="read" bs="64k"/>
</suite>
)";
  }

  // Runs `storqual run --target TARGET` with its stdout into `head -n 1`; checks the reports and
  // that the exit code is the one the JSON records.
  void run_into_head(const std::string& target) {
    const fs::path out = dir_ / "out";
    const fs::path rc_file = dir_ / "rc";
    const std::string line = "( '" + std::string(STORQUAL_BINARY) + "' run --target '" + target +
                             "' --suite '" + (dir_ / "suite.xml").string() + "' --out '" +
                             out.string() + "' 2>'" + (dir_ / "err").string() + "'; echo $? >'" +
                             rc_file.string() + "' ) | head -n 1";
    testing::CommandResult r = run_shell(line);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("storqual run"), std::string::npos) << "head's one line: " << r.out;
    // An unknown vendor or model leaves no double space ("Red Hat (0x1af4)  (virtio)").
    EXPECT_EQ(r.out.find("  "), std::string::npos) << r.out;
    const std::string err = read_file(dir_ / "err");
    const int rc = std::stoi(read_file(rc_file));
    EXPECT_NE(rc, 141) << "killed by SIGPIPE: " << err;

    std::ifstream json_in(out / "storqual-result.json");
    const nlohmann::json json = nlohmann::json::parse(json_in, nullptr, false);
    ASSERT_TRUE(json.is_object()) << "no JSON report; exit " << rc << ": " << err;
    EXPECT_EQ(json["workloads"].size(), 2u);
    EXPECT_EQ(json["exit_code"].get<int>(), rc) << err;
    EXPECT_EQ(rc, 0) << err;  // measured-only, nothing failed: the run's own code
    pugi::xml_document junit;
    EXPECT_TRUE(junit.load_file((out / "storqual-junit.xml").c_str())) << err;
    EXPECT_TRUE(junit.child("testsuites")) << err;
    const std::string html = read_file(out / "storqual-report.html");
    EXPECT_NE(html.find("</html>"), std::string::npos) << "HTML incomplete: " << err;
  }

  ScratchDir dir_{"storqual-broken-pipe"};
};

TEST_F(BrokenPipe, RunIntoHeadStillWritesEveryReportOnAScratchFile) {
  run_into_head((dir_ / "target").string());
}

TEST_F(BrokenPipe, RunIntoHeadStillWritesEveryReportOnALoopDevice) {
  STORQUAL_REQUIRE_ROOT();
  auto made = run_command({"truncate", "-s", "64M", (dir_ / "disk.img").string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  testing::LoopDevice loop(dir_ / "disk.img");
  run_into_head(loop.path());
}

}  // namespace
}  // namespace storqual
