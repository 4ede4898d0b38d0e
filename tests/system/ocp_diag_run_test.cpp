// SPDX-License-Identifier: Apache-2.0
// `storqual run --ocp-diag F` through the real binary on a scratch directory: a run whose claims
// pass, one whose claim fails and one whose workload is in error (every read stuck, through the
// hidden --inject-fault) each write an OCP Test & Validation stream whose every line is valid
// against the published output schema (tests/data/ocp/validate.py, python3-jsonschema; skipped
// with the reason without it) and whose testRunEnd says what the run was: COMPLETE/PASS,
// COMPLETE/FAIL, ERROR/NOT_APPLICABLE. `storqual report RESULT.json --ocp-diag F` writes the same
// bytes as the run did.
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
using Json = nlohmann::json;
using testing::read_file;
using testing::run_command;
using testing::ScratchDir;

const char* const kPython = "/usr/bin/python3";  // Debian's, where python3-jsonschema is
const fs::path kValidator = fs::path(STORQUAL_TEST_DATA) / "ocp" / "validate.py";

bool has_jsonschema() {
  return fs::exists(kPython) && run_command({kPython, "-c", "import jsonschema"}).exit_code == 0;
}

class OcpDiagRun : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "target");
    std::ofstream(dir_ / "suite.xml") << R"(<?xml version="1.0"?>
<suite name="ocp" description="one read, one write">
  <defaults direct="1" ramp_time="0" iodepth="4" runtime="300ms" size="8m" io_timeout="3s"/>
  <workload id="randread-4k" rw="randread" bs="4k"/>
  <workload id="randwrite-4k" rw="randwrite" bs="4k"/>
</suite>
)";
  }
  // A sheet claiming `read_iops` for the reads and 10 IOPS for the writes.
  fs::path sheet(const std::string& name, const std::string& read_iops) {
    const fs::path p = dir_ / (name + ".xml");
    std::ofstream(p) << R"(<?xml version="1.0"?>
<spec-sheet name="ocp sheet" vendor="test" suite="ocp" source="test">
  <match model="*"/>
  <claims tolerance="10%">
    <claim workload="randread-4k" metric="iops" value=")"
                     << read_iops << R"("/>
    <claim workload="randwrite-4k" metric="iops" value="10"/>
  </claims>
</spec-sheet>
)";
    return p;
  }
  // Runs with the sheet and returns the run's exit code; the stream is dir_/name/ocp.jsonl.
  int run(const std::string& name, const std::string& read_iops,
          const std::vector<std::string>& extra = {}) {
    const fs::path out = dir_ / name;
    std::vector<std::string> argv = {STORQUAL_BINARY, "run",
                                     "--target",      (dir_ / "target").string(),
                                     "--suite",       (dir_ / "suite.xml").string(),
                                     "--spec",        sheet(name, read_iops).string(),
                                     "--out",         out.string(),
                                     "--ocp-diag",    (out / "ocp.jsonl").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto r = run_command(argv);
    EXPECT_TRUE(fs::exists(out / "ocp.jsonl")) << r.out << r.err;
    return r.exit_code;
  }
  std::vector<Json> lines(const std::string& name) {
    std::vector<Json> out;
    std::istringstream in(read_file(dir_ / name / "ocp.jsonl"));
    std::string line;
    while (std::getline(in, line)) out.push_back(Json::parse(line));
    return out;
  }
  Json run_end(const std::string& name) {
    const auto all = lines(name);
    return all.empty() ? Json() : all.back()["testRunArtifact"]["testRunEnd"];
  }
  // Validates the stream against the schema; "" when valid, else what the validator said.
  std::string validate(const std::string& name) {
    const auto r =
        run_command({kPython, kValidator.string(), (dir_ / name / "ocp.jsonl").string()});
    return r.exit_code == 0 ? "" : r.out + r.err;
  }
  ScratchDir dir_{"storqual-ocp"};
};

TEST_F(OcpDiagRun, PassFailAndErrorRunsAreValidAgainstTheSchema) {
  EXPECT_EQ(run("pass", "10"), 0);
  EXPECT_EQ(run("fail", "100000000"), 1);
  EXPECT_EQ(run("error", "10", {"--inject-fault", "stuck:dir=read"}), 3);
  EXPECT_EQ(run_end("pass"), Json({{"status", "COMPLETE"}, {"result", "PASS"}}));
  EXPECT_EQ(run_end("fail"), Json({{"status", "COMPLETE"}, {"result", "FAIL"}}));
  EXPECT_EQ(run_end("error"), Json({{"status", "ERROR"}, {"result", "NOT_APPLICABLE"}}));
  bool error_seen = false;
  for (const auto& l : lines("error"))
    if (l.contains("testStepArtifact") && l["testStepArtifact"].contains("error"))
      error_seen = l["testStepArtifact"]["error"]["message"].get<std::string>().find(
                       "io_timeout") != std::string::npos;
  EXPECT_TRUE(error_seen) << read_file(dir_ / "error" / "ocp.jsonl");
  if (!has_jsonschema())
    GTEST_FAIL() << "cannot run: python3-jsonschema is missing (/usr/bin/python3 -c 'import "
                    "jsonschema' failed): scripts/install-deps.sh test installs it";
  for (const char* name : {"pass", "fail", "error"})
    EXPECT_EQ(validate(name), "") << name << ":\n" << read_file(dir_ / name / "ocp.jsonl");
}

TEST_F(OcpDiagRun, AReportOfTheResultWritesTheSameBytes) {
  EXPECT_EQ(run("fail", "100000000"), 1);
  const fs::path again = dir_ / "again.jsonl";
  const auto r =
      run_command({STORQUAL_BINARY, "report", (dir_ / "fail" / "storqual-result.json").string(),
                   "--ocp-diag", again.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_file(again), read_file(dir_ / "fail" / "ocp.jsonl"));
}

TEST_F(OcpDiagRun, TheValidatorRefusesAnInvalidStream) {
  STORQUAL_REQUIRE(has_jsonschema(), "python3-jsonschema");
  EXPECT_EQ(run("pass", "10"), 0);
  std::string text = read_file(dir_ / "pass" / "ocp.jsonl");
  const auto at = text.find("\"COMPLETE\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 10, "\"FINISHED\"");
  std::ofstream(dir_ / "pass" / "ocp.jsonl", std::ios::trunc) << text;
  EXPECT_NE(validate("pass"), "");
}

}  // namespace
}  // namespace storqual
