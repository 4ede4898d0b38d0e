// SPDX-License-Identifier: Apache-2.0
// JUnit XML: counts that CI tools read, well-formedness (xmllint), an independent parser
// (python3-junitparser), numbers in failure messages, XML-forbidden characters stripped.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "reporting/atomic_file.hpp"
#include "reporting/junit_report.hpp"
#include "tests/support/test_devices.hpp"
#include "tests/unit/report_sample_result.hpp"

namespace storqual::reporting {
namespace {

using storqual::testing::run_command;

pugi::xml_document parse(const std::string& xml) {
  pugi::xml_document doc;
  const auto ok = doc.load_string(xml.c_str());
  EXPECT_TRUE(ok) << ok.description();
  return doc;
}

TEST(ReportJunit, OneSuitePerRunOneCasePerClaimWithCounts) {
  const std::string xml = render_junit({sample::run(false), sample::run(true)});
  const auto doc = parse(xml);
  const auto root = doc.child("testsuites");
  // Passing run: 4 claims + 1 measured-only workload; failing run: 5 claims (1 fail, 1 skipped)
  // + 1 measured-only workload.
  EXPECT_EQ(root.attribute("tests").as_int(), 11);
  EXPECT_EQ(root.attribute("failures").as_int(), 1);
  EXPECT_EQ(root.attribute("errors").as_int(), 0);
  EXPECT_EQ(root.attribute("skipped").as_int(), 1);
  int suites = 0;
  for (auto suite : root.children("testsuite")) {
    ++suites;
    EXPECT_STREQ(suite.attribute("name").value(), "Example SSD 500GB S5X9NG0R123456");
    EXPECT_STREQ(suite.attribute("hostname").value(), "qual-host-07");
    EXPECT_STREQ(suite.attribute("timestamp").value(), "2026-11-29T18:00:00");
    auto props = suite.child("properties");
    EXPECT_TRUE(props.find_child_by_attribute("property", "name", "spec.sha256"));
    EXPECT_TRUE(props.find_child_by_attribute("property", "name", "storqual.version"));
    EXPECT_TRUE(props.find_child_by_attribute("property", "name", "suite"));
    EXPECT_TRUE(props.find_child_by_attribute("property", "name", "device.serial"));
  }
  EXPECT_EQ(suites, 2);
  const auto failing = root.find_child_by_attribute("testsuite", "id", "1");
  EXPECT_EQ(failing.attribute("tests").as_int(), 6);
  EXPECT_EQ(failing.attribute("failures").as_int(), 1);
  EXPECT_EQ(failing.attribute("skipped").as_int(), 1);
  const auto failed_case =
      failing.find_child_by_attribute("testcase", "name", "randwrite-4k-qd32 iops");
  ASSERT_TRUE(failed_case);
  EXPECT_STREQ(failed_case.attribute("classname").value(), "storqual.Example SATA SSD 500GB");
  EXPECT_STREQ(failed_case.attribute("time").value(), "60.000");
  const std::string message = failed_case.child("failure").attribute("message").value();
  EXPECT_NE(message.find("72300"), std::string::npos) << message;
  EXPECT_NE(message.find("88000"), std::string::npos) << message;
  EXPECT_NE(message.find("17.8%"), std::string::npos) << message;
  auto case_props = failed_case.child("properties");
  EXPECT_STREQ(
      case_props.find_child_by_attribute("property", "name", "measured").attribute("value").value(),
      "72300");
  EXPECT_STREQ(
      case_props.find_child_by_attribute("property", "name", "claimed").attribute("value").value(),
      "88000");
  EXPECT_STREQ(
      case_props.find_child_by_attribute("property", "name", "unit").attribute("value").value(),
      "IOPS");
  EXPECT_STREQ(case_props.find_child_by_attribute("property", "name", "tolerance")
                   .attribute("value")
                   .value(),
               "10%");
  EXPECT_TRUE(failed_case.child("system-out"));
  EXPECT_TRUE(failing.find_child_by_attribute("testcase", "name", "randread-4k-qd1 lat.p99")
                  .child("skipped"));
  EXPECT_TRUE(failing.find_child_by_attribute("testcase", "name", "randrw70-4k measured"));
}

TEST(ReportJunit, WorkloadErrorsAndErrorVerdictsAreErrors) {
  RunResult r = sample::run(false);
  r.verdicts[1].status = VerdictStatus::Error;
  r.verdicts[1].message = "interrupted";
  r.workloads[4].errors = {"pread: Input/output error"};
  const auto doc = parse(render_junit({r}));
  const auto suite = doc.child("testsuites").child("testsuite");
  EXPECT_EQ(suite.attribute("errors").as_int(), 2);
  EXPECT_TRUE(
      suite.find_child_by_attribute("testcase", "name", "randwrite-4k-qd32 iops").child("error"));
  EXPECT_STREQ(suite.find_child_by_attribute("testcase", "name", "randrw70-4k measured")
                   .child("error")
                   .attribute("message")
                   .value(),
               "pread: Input/output error");
}

TEST(ReportJunit, CharactersXmlForbidsAreStripped) {
  RunResult r = sample::run(false);
  r.device.identity[0].value = std::string("Bad\x01Model\x1b[31m\xef\xbf\xbe\xff<&>\"") + "\x7f";
  r.spec.name = std::string("spec\x00name", 9);
  r.verdicts[0].message = "tab\tnewline\ncr\rend\x0c";
  r.verdicts[0].workload = "w\xed\xa0\x80x";  // an encoded lone surrogate
  const std::string xml = render_junit({r});
  const auto doc = parse(xml);
  const auto suite = doc.child("testsuites").child("testsuite");
  EXPECT_STREQ(suite.attribute("name").value(), "BadModel[31m<&>\" S5X9NG0R123456");
  EXPECT_TRUE(suite.find_child_by_attribute("testcase", "name", "wx iops"));
  for (unsigned char c : xml)
    EXPECT_FALSE(c < 0x20 && c != '\t' && c != '\n' && c != '\r') << "control byte " << int(c);
  EXPECT_EQ(xml.find("\xef\xbf\xbe"), std::string::npos);
  EXPECT_EQ(xml.find('\x7f'), std::string::npos);
}

TEST(ReportJunit, XmllintAndJunitparserAgree) {
  if (!std::filesystem::exists("/usr/bin/xmllint"))
    GTEST_SKIP() << "xmllint missing (libxml2-utils)";
  testing::ScratchDir dir("report-junit");
  const std::string path = (dir / "junit.xml").string();
  RunResult odd = sample::run(true);
  odd.device.identity[0].value = "Model \x01<script>&\"";
  write_junit(path, {sample::run(false), odd});
  EXPECT_FALSE(std::filesystem::exists(temp_name_for(path)));
  const auto lint = run_command({"/usr/bin/xmllint", "--noout", path});
  EXPECT_EQ(lint.exit_code, 0) << lint.err;

  const auto probe = run_command({"/usr/bin/python3", "-c", "import junitparser"});
  if (probe.exit_code != 0) GTEST_SKIP() << "python3-junitparser missing: " << probe.err;
  const std::string script = R"py(
import sys
from junitparser import JUnitXml, Failure, Error, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
tests = failures = errors = skipped = 0
names = []
for suite in xml:
    for case in suite:
        tests += 1
        kinds = [type(r) for r in case.result]
        failures += Failure in kinds
        errors += Error in kinds
        skipped += Skipped in kinds
        for r in case.result:
            if isinstance(r, Failure):
                names.append(r.message)
    names.append(suite.name)
print(tests, failures, errors, skipped)
for n in names:
    print(n)
)py";
  const auto parsed = run_command({"/usr/bin/python3", "-c", script, path});
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  std::istringstream out(parsed.out);
  int tests = -1, failures = -1, errors = -1, skipped = -1;
  out >> tests >> failures >> errors >> skipped;
  EXPECT_EQ(tests, 11);
  EXPECT_EQ(failures, 1);
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(skipped, 1);
  EXPECT_NE(parsed.out.find("measured 72300 IOPS, 17.8% below the claimed 88000"),
            std::string::npos)
      << parsed.out;
  EXPECT_NE(parsed.out.find("Model <script>&\" S5X9NG0R123456"), std::string::npos) << parsed.out;
}

}  // namespace
}  // namespace storqual::reporting
