// SPDX-License-Identifier: Apache-2.0
// `storqual report`: re-renders saved results into JUnit, HTML and JSON; bad files exit 2.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reporting/html_report.hpp"
#include "reporting/result_json.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using storqual::testing::run_command;
using storqual::testing::ScratchDir;

using storqual::testing::read_file;

void save(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

TEST(ReportCli, RerendersOneResultIntoEveryFormat) {
  ScratchDir dir("report-cli");
  const RunResult run = sample::run(true);
  save(dir / "result.json", to_json_text(run));
  const auto r = run_command({STORQUAL_BINARY, "report", (dir / "result.json").string(), "--junit",
                              (dir / "j.xml").string(), "--html", (dir / "r.html").string(),
                              "--json", (dir / "copy.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir / "r.html"), render_html(run)) << "the same page as the run itself";
  EXPECT_EQ(read_file(dir / "copy.json"), to_json_text(run));
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_file((dir / "j.xml").c_str()));
  EXPECT_EQ(doc.child("testsuites").attribute("failures").as_int(), 1);
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(ReportCli, SeveralResultsGiveOneJunitSuiteEach) {
  ScratchDir dir("report-cli");
  save(dir / "a.json", to_json_text(sample::run(false)));
  save(dir / "b.json", to_json_text(sample::run(true)));
  const auto r = run_command({STORQUAL_BINARY, "report", (dir / "a.json").string(),
                              (dir / "b.json").string(), "--junit", (dir / "fleet.xml").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_file((dir / "fleet.xml").c_str()));
  int suites = 0;
  for ([[maybe_unused]] auto s : doc.child("testsuites").children("testsuite")) ++suites;
  EXPECT_EQ(suites, 2);
  const auto html = run_command({STORQUAL_BINARY, "report", (dir / "a.json").string(),
                                 (dir / "b.json").string(), "--html", (dir / "x.html").string()});
  // Several results merge into one fleet page (tests/unit/report_merge_test.cpp has the details).
  EXPECT_EQ(html.exit_code, 0) << html.err;
  std::ifstream page(dir / "x.html");
  const std::string text((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("id=\"fleet-table\""), std::string::npos);
}

TEST(ReportCli, PrintsTheVerdictTableWithoutOutputs) {
  ScratchDir dir("report-cli");
  save(dir / "result.json", to_json_text(sample::run(true)));
  const auto r = run_command({STORQUAL_BINARY, "report", (dir / "result.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("RESULT: INCOMPLETE (3 pass, 1 fail"), std::string::npos) << r.out;
}

TEST(ReportCli, BadInputExitsTwoNamingFileAndJsonPath) {
  ScratchDir dir("report-cli");
  save(dir / "bad.json", "{\"workloads\": [{\"id\": 7}], \"verdicts\": []}");
  const auto r = run_command({STORQUAL_BINARY, "report", (dir / "bad.json").string(), "--html",
                              (dir / "r.html").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find((dir / "bad.json").string() + ": workloads[0].id: expected a string"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.html"));
  EXPECT_EQ(run_command({STORQUAL_BINARY, "report"}).exit_code, 2);
  EXPECT_EQ(run_command({STORQUAL_BINARY, "report", (dir / "missing.json").string()}).exit_code, 2);
  save(dir / "ok.json", to_json_text(sample::run(false)));
  const auto unwritable = run_command({STORQUAL_BINARY, "report", (dir / "ok.json").string(),
                                       "--junit", (dir / "no-dir" / "j.xml").string()});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_NE(unwritable.err.find("no-dir"), std::string::npos) << unwritable.err;
  const auto help = run_command({STORQUAL_BINARY, "report", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--junit"), std::string::npos);
}

}  // namespace
}  // namespace storqual::reporting
