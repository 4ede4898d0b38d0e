// SPDX-License-Identifier: Apache-2.0
// JUnit XML: counts that CI tools read, the device in every name and message, unique suites and
// classnames across runs, dots that do not split a classname, the default and the rich form, the
// two strict schemas (xmllint) and an independent parser (python3-junitparser), XML-forbidden
// characters stripped.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "model/quantity_format.hpp"
#include "reporting/atomic_file.hpp"
#include "reporting/junit_report.hpp"
#include "tests/support/junit_check.hpp"
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

constexpr const char* kSerial = "S5X9NG0R123456";
// The sheet, the unit and the suite: never the time (a CI server follows a testcase by its ids).
constexpr const char* kClass = "storqual.Example SATA SSD 500GB.S5X9NG0R123456 sata-ssd";

std::string case_name(const std::string& claim) {
  return std::string(kSerial) + " " + claim;
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
  EXPECT_FALSE(root.attribute("skipped")) << "not in junit-10.xsd nor jenkins-junit.xsd";
  std::set<std::string> suite_names;
  for (auto suite : root.children("testsuite")) {
    suite_names.insert(suite.attribute("name").value());
    EXPECT_STREQ(suite.attribute("hostname").value(), "qual-host-07");
    EXPECT_STREQ(suite.attribute("timestamp").value(), "2026-11-29T18:00:00Z");
    EXPECT_STREQ(suite.attribute("time").value(), "370.000") << "the run's wall time, 18:00:00 to "
                                                                "18:06:10, not the sum of claims";
    auto props = suite.child("properties");
    for (const char* p : {"spec.sha256", "storqual.version", "suite", "run.start"})
      EXPECT_TRUE(props.find_child_by_attribute("property", "name", p)) << p;
    EXPECT_STREQ(props.find_child_by_attribute("property", "name", "device.serial")
                     .attribute("value")
                     .value(),
                 kSerial)
        << "the value alone";
    EXPECT_STREQ(props.find_child_by_attribute("property", "name", "device.serial.source")
                     .attribute("value")
                     .value(),
                 "udev:ID_SERIAL_SHORT");
  }
  // Two runs of one device in one file (a merge): the later one carries its ordinal.
  EXPECT_EQ(suite_names, (std::set<std::string>{"Example SSD 500GB S5X9NG0R123456",
                                                "Example SSD 500GB S5X9NG0R123456 run 2"}));
  const auto failing = root.find_child_by_attribute("testsuite", "id", "1");
  EXPECT_EQ(failing.attribute("tests").as_int(), 6);
  EXPECT_EQ(failing.attribute("failures").as_int(), 1);
  // The skipped claim, and the measured-only workload nobody claimed (never a passed testcase).
  EXPECT_EQ(failing.attribute("skipped").as_int(), 2);
  const auto failed_case = failing.find_child_by_attribute(
      "testcase", "name", case_name("randwrite-4k-qd32 iops").c_str());
  ASSERT_TRUE(failed_case) << xml;
  EXPECT_EQ(std::string(failed_case.attribute("classname").value()),
            std::string(kClass) + " run 2");
  EXPECT_STREQ(failed_case.attribute("time").value(), "60.000");
  EXPECT_FALSE(failed_case.child("properties")) << "the default form has no testcase properties";
  EXPECT_FALSE(failed_case.attribute("file"));
  const std::string message = failed_case.child("failure").attribute("message").value();
  EXPECT_EQ(message.rfind(case_name("randwrite-4k-qd32 iops: measured 72300 IOPS"), 0), 0u)
      << message;
  EXPECT_NE(message.find("88000"), std::string::npos) << message;
  EXPECT_NE(message.find("tolerance 10%"), std::string::npos) << message;
  const std::string body = failed_case.child("failure").text().get();
  for (const char* line : {"device: Example SSD 500GB S5X9NG0R123456, target /dev/sdb",
                           "claim: randwrite-4k-qd32 iops", "measured: 72.3k IOPS",
                           "claimed: 88k IOPS", "difference: -17.8%", "tolerance: 10%"})
    EXPECT_NE(body.find(line), std::string::npos) << line << "\n" << body;
  const std::string out = failed_case.child("system-out").text().get();
  EXPECT_NE(out.find("measured: 72.3k IOPS"), std::string::npos) << out;
  const auto skipped =
      failing
          .find_child_by_attribute("testcase", "name", case_name("randread-4k-qd1 lat.p99").c_str())
          .child("skipped");
  ASSERT_TRUE(skipped);
  EXPECT_FALSE(skipped.attribute("message")) << "jenkins-junit.xsd: <skipped> is text only";
  EXPECT_EQ(std::string(skipped.text().get()),
            case_name("randread-4k-qd1 lat.p99: the suite sata-ssd has no workload randread-4k-qd1 "
                      "(claimed 250 us, tolerance 10%)"));
  const auto measured_only = failing.find_child_by_attribute(
      "testcase", "name", case_name("randrw70-4k measured only").c_str());
  ASSERT_TRUE(measured_only);
  EXPECT_NE(std::string(measured_only.child("system-out").text().get())
                .find("randrw70-4k measured only: no claim"),
            std::string::npos);
}

TEST(ReportJunit, RichFormAddsPropertiesFileAndLine) {
  RunResult r = sample::run(true);
  r.verdicts[1].file = "specs/example.xml";
  r.verdicts[1].line = 12;
  const auto doc = parse(render_junit({r}, {.rich = true}));
  const auto root = doc.child("testsuites");
  EXPECT_EQ(root.attribute("skipped").as_int(), 2);
  const auto tc =
      root.child("testsuite")
          .find_child_by_attribute("testcase", "name", case_name("randwrite-4k-qd32 iops").c_str());
  EXPECT_STREQ(tc.attribute("file").value(), "specs/example.xml");
  EXPECT_EQ(tc.attribute("line").as_int(), 12);
  auto props = tc.child("properties");
  auto prop = [&](const char* name) {
    return std::string(
        props.find_child_by_attribute("property", "name", name).attribute("value").value());
  };
  EXPECT_EQ(prop("measured"), "72300");
  EXPECT_EQ(prop("claimed"), "88000");
  EXPECT_EQ(prop("unit"), "IOPS");
  EXPECT_EQ(prop("tolerance_pct"), "10");
  EXPECT_NE(std::string(tc.child("failure").text().get()).find("spec sheet: specs/example.xml:12"),
            std::string::npos);
  const auto skipped =
      root.child("testsuite")
          .find_child_by_attribute("testcase", "name", case_name("randread-4k-qd1 lat.p99").c_str())
          .child("skipped");
  EXPECT_EQ(std::string(skipped.attribute("message").value()), std::string(skipped.text().get()));
}

TEST(ReportJunit, DotsInSpecNameAndSerialDoNotSplitTheClassname) {
  RunResult r = sample::run(true);
  r.spec.name = "Example NVMe SSD 1.92TB v2.1";
  for (auto& row : r.device.identity)
    if (row.field == "serial") row.value = "SN.42";
  const auto doc = parse(render_junit({r}));
  for (auto tc : doc.child("testsuites").child("testsuite").children("testcase")) {
    EXPECT_STREQ(tc.attribute("classname").value(),
                 "storqual.Example NVMe SSD 1_92TB v2_1.SN_42 sata-ssd");
    EXPECT_EQ(std::string(tc.attribute("name").value()).rfind("SN.42 ", 0), 0u);
  }
}

TEST(ReportJunit, WithoutASerialTheTargetNamesTheDevice) {
  RunResult a = sample::run(false);
  RunResult b = sample::run(false);
  for (auto* r : {&a, &b}) r->device.identity.erase(r->device.identity.begin() + 1);  // the serial
  b.device.path = "/dev/sdc";
  b.device.name = "sdc";
  const auto doc = parse(render_junit({a, b}));
  std::set<std::string> classnames, names;
  for (auto suite : doc.child("testsuites").children("testsuite"))
    for (auto tc : suite.children("testcase")) {
      classnames.insert(tc.attribute("classname").value());
      EXPECT_TRUE(names.insert(tc.attribute("name").value()).second)
          << tc.attribute("name").value();
    }
  EXPECT_EQ(classnames,
            (std::set<std::string>{"storqual.Example SATA SSD 500GB./dev/sdb sata-ssd",
                                   "storqual.Example SATA SSD 500GB./dev/sdc sata-ssd"}));
  EXPECT_TRUE(doc.select_node("//testsuite[@name='Example SSD 500GB /dev/sdc']"));
}

// Runs of one unit at other times, on other hosts: the same ids in every file that holds one of
// them (CI keeps one history per testcase), and where one file holds several, the later carry
// their ordinal; the time is the suite's timestamp and run.start property, never an id.
TEST(ReportJunit, TheSameUnitSheetAndSuiteHaveTheSameIdsInEveryRun) {
  RunResult first = sample::run(false), later = sample::run(false), elsewhere = sample::run(false);
  later.environment.start_utc = "2026-11-30T09:15:00Z";
  later.environment.end_utc = "2026-11-30T09:15:04Z";
  later.environment.wall_time_s = 4.321;
  elsewhere.environment.start_utc = later.environment.start_utc;
  elsewhere.environment.host = "qual-host-08";
  auto ids = [](const pugi::xml_document& doc) {
    std::set<std::pair<std::string, std::string>> out;
    for (auto suite : doc.child("testsuites").children("testsuite"))
      for (auto tc : suite.children("testcase"))
        out.insert({tc.attribute("classname").value(), tc.attribute("name").value()});
    return out;
  };
  const auto a = parse(render_junit({first})), b = parse(render_junit({later})),
             c = parse(render_junit({elsewhere}));
  EXPECT_FALSE(ids(a).empty());
  EXPECT_EQ(ids(a), ids(b));
  EXPECT_EQ(ids(a), ids(c));
  for (const auto& [classname, name] : ids(a)) {
    EXPECT_EQ(classname.find("2026"), std::string::npos) << classname;
    EXPECT_EQ(name.find("2026"), std::string::npos) << name;
  }
  EXPECT_STREQ(b.child("testsuites").child("testsuite").attribute("timestamp").value(),
               "2026-11-30T09:15:00Z");
  // A merge of the three: unique ids, the first run's as in its own file.
  const auto merged = parse(render_junit({first, later, elsewhere}));
  std::vector<std::string> names;
  for (auto suite : merged.child("testsuites").children("testsuite"))
    names.push_back(suite.attribute("name").value());
  EXPECT_EQ(names, (std::vector<std::string>{"Example SSD 500GB S5X9NG0R123456",
                                             "Example SSD 500GB S5X9NG0R123456 run 2",
                                             "Example SSD 500GB S5X9NG0R123456 run 3"}));
  std::set<std::pair<std::string, std::string>> all;
  std::size_t cases = 0;
  for (auto suite : merged.child("testsuites").children("testsuite"))
    for (auto tc : suite.children("testcase")) {
      ++cases;
      all.insert({tc.attribute("classname").value(), tc.attribute("name").value()});
    }
  EXPECT_EQ(all.size(), cases) << "ids repeat in the merge";
  for (const auto& id : ids(a)) EXPECT_TRUE(all.count(id)) << id.first << " / " << id.second;
  EXPECT_STREQ(merged.select_node("//testsuite[@id='1']").node().attribute("time").value(),
               "4.321");
}

TEST(ReportJunit, LotAndBaselineCasesNameTheirReferenceAndMeasuredOnlyIsMarked) {
  RunResult r = sample::run(false);
  ClaimVerdict lot = sample::verdict("randread-4k-qd32", "iops", "IOPS", 119000, 104000, 10, 5);
  lot.kind = reporting::VerdictKind::Lot;
  lot.message = "measured 104k IOPS, 12.6% below the median 119k IOPS of 4 units";
  r.verdicts.push_back(lot);
  ClaimVerdict only;
  only.workloads = {"randread-4k-qd1"};
  only.metric = "iops";
  only.unit = "IOPS";
  only.status = VerdictStatus::MeasuredOnly;
  only.measured = 32950;
  only.message = "measured 33k IOPS; no claim";
  r.verdicts.push_back(only);
  const auto doc = parse(render_junit({r}));
  const auto suite = doc.child("testsuites").child("testsuite");
  const auto lot_case = suite.find_child_by_attribute(
      "testcase", "name", case_name("lot: randread-4k-qd32 iops").c_str());
  const std::string body = lot_case.child("failure").text().get();
  EXPECT_NE(body.find("lot median: 119k IOPS"), std::string::npos) << body;
  EXPECT_NE(body.find("lot tolerance: 10%"), std::string::npos) << body;
  EXPECT_EQ(body.find("claimed"), std::string::npos) << body;
  EXPECT_STREQ(lot_case.child("failure").attribute("type").value(), "lot-outlier");
  const auto only_case = suite.find_child_by_attribute(
      "testcase", "name", case_name("randread-4k-qd1 measured only").c_str());
  ASSERT_TRUE(only_case);
  const std::string out = only_case.child("system-out").text().get();
  // The same figure, one spelling, in the message and the lines under it.
  EXPECT_NE(out.find("measured 33k IOPS"), std::string::npos) << out;
  EXPECT_NE(out.find("measured: 33k IOPS"), std::string::npos) << out;
  EXPECT_EQ(format_verdict_value(32950, "IOPS"), "33k IOPS");
}

TEST(ReportJunit, WorkloadErrorsAndErrorVerdictsAreErrors) {
  RunResult r = sample::run(false);
  r.verdicts[1].status = VerdictStatus::Error;
  r.verdicts[1].message = "workload 'randwrite-4k-qd32' was interrupted";
  r.verdicts[1].error_cause = ErrorCause::Interrupted;  // the judge's, not read from the message
  r.workloads[4].errors = {"pread: Input/output error"};
  const auto doc = parse(render_junit({r}));
  const auto suite = doc.child("testsuites").child("testsuite");
  EXPECT_EQ(suite.attribute("errors").as_int(), 2);
  const auto interrupted =
      suite.find_child_by_attribute("testcase", "name", case_name("randwrite-4k-qd32 iops").c_str())
          .child("error");
  EXPECT_STREQ(interrupted.attribute("type").value(), "interrupted");
  EXPECT_EQ(std::string(suite
                            .find_child_by_attribute("testcase", "name",
                                                     case_name("randrw70-4k measured only").c_str())
                            .child("error")
                            .attribute("message")
                            .value()),
            case_name("randrw70-4k measured only: pread: Input/output error"));
}

TEST(ReportJunit, CharactersXmlForbidsAreStripped) {
  RunResult r = sample::run(false);
  r.device.identity[0].value = std::string("Bad\x01Model\x1b[31m\xef\xbf\xbe\xff<&>\"") + "\x7f";
  r.spec.name = std::string("spec\x00name", 9);
  r.verdicts[0].message = "tab\tnewline\ncr\rend\x0c";
  r.verdicts[0].workloads = {"w\xed\xa0\x80x"};  // an encoded lone surrogate
  const std::string xml = render_junit({r});
  const auto doc = parse(xml);
  const auto suite = doc.child("testsuites").child("testsuite");
  EXPECT_STREQ(suite.attribute("name").value(), "BadModel[31m<&>\" S5X9NG0R123456");
  EXPECT_TRUE(suite.find_child_by_attribute("testcase", "name", "S5X9NG0R123456 wx iops"));
  for (unsigned char c : xml)
    EXPECT_FALSE(c < 0x20 && c != '\t' && c != '\n' && c != '\r') << "control byte " << int(c);
  EXPECT_EQ(xml.find("\xef\xbf\xbe"), std::string::npos);
  EXPECT_EQ(xml.find('\x7f'), std::string::npos);
}

TEST(ReportJunit, XmllintAndJunitparserAgree) {
  if (!std::filesystem::exists("/usr/bin/xmllint"))
    GTEST_FAIL() << "cannot run: xmllint is missing (libxml2-utils)";
  testing::ScratchDir dir("report-junit");
  const std::string path = (dir / "junit.xml").string();
  RunResult odd = sample::run(true);
  odd.device.identity[0].value = "Model \x01<script>&\"";
  write_junit(path, {sample::run(false), odd});
  EXPECT_FALSE(std::filesystem::exists(temp_name_for(path)));
  const auto lint = run_command({"/usr/bin/xmllint", "--noout", path});
  EXPECT_EQ(lint.exit_code, 0) << lint.err;

  const auto probe = run_command({"/usr/bin/python3", "-c", "import junitparser"});
  if (probe.exit_code != 0)
    GTEST_FAIL() << "cannot run: python3-junitparser is missing: " << probe.err;
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
  // The failing run's skipped claim, and each run's measured-only workload (never a pass).
  EXPECT_EQ(skipped, 3);
  EXPECT_NE(parsed.out.find("S5X9NG0R123456 randwrite-4k-qd32 iops: measured 72300 IOPS, 17.8% "
                            "below the claimed 88000"),
            std::string::npos)
      << parsed.out;
  EXPECT_NE(parsed.out.find("Model <script>&\" S5X9NG0R123456"), std::string::npos) << parsed.out;

  // Both strict schemas and the reader's uniqueness and naming checks.
  const auto checked = testing::validate_junit({path});
  std::string said;
  for (const auto& line : checked.lines) said += line + "\n";
  EXPECT_TRUE(checked.valid) << said;
}

TEST(ReportJunit, HostLimitedFioCommandSaysFioWillReportLess) {
  const RunResult r = sample::host_limited_run();
  const auto doc = parse(render_junit({r}));
  const std::string note = "note: this figure was host-limited: fio spends more CPU per I/O";
  int with_limited = 0, with_other = 0;
  for (auto tc : doc.select_nodes("//testcase")) {
    const std::string out = tc.node().child("system-out").text().get();
    for (std::size_t i = 0; i < r.workloads.size(); ++i) {
      const std::string fio_line = "fio: " + r.workloads[i].fio_command + "\n";
      const std::size_t at = out.find(fio_line);
      if (at == std::string::npos) continue;
      const bool noted = out.compare(at + fio_line.size(), note.size(), note) == 0;
      if (i == 0) {
        ++with_limited;
        EXPECT_TRUE(noted) << out;
      } else {
        ++with_other;
        EXPECT_FALSE(noted) << out;
      }
    }
  }
  EXPECT_GT(with_limited, 0);
  EXPECT_GT(with_other, 0);
}

}  // namespace
}  // namespace storqual::reporting
