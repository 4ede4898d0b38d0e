// SPDX-License-Identifier: Apache-2.0
// The files as users meet them: every malformed file in tests/data/bad gets exactly the message
// docs/formats.md promises (the test reads the table from the docs), every shipped suite and spec
// sheet loads cleanly, and `storqual check` behaves as documented.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "runner/base/xml_file.hpp"
#include "runner/methods/capacity/capacity_check.hpp"
#include "runner/methods/latency_search/latency_search.hpp"
#include "runner/methods/pts/pts_tests.hpp"
#include "runner/methods/sustained_write/sustained_write.hpp"
#include "runner/specs/cross_check.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

const std::filesystem::path kSource = STORQUAL_SOURCE_DIR;
const std::filesystem::path kBad = std::filesystem::path(STORQUAL_TEST_DATA) / "bad";

// Rows "| `bad/NAME.xml` | mistake | `MESSAGE` |" of docs/formats.md, as NAME.xml -> MESSAGE.
std::map<std::string, std::string> documented_messages() {
  std::ifstream docs(kSource / "docs" / "formats.md");
  std::map<std::string, std::string> rows;
  std::string line;
  while (std::getline(docs, line)) {
    if (!line.starts_with("| `bad/")) continue;
    std::size_t name_end = line.find('`', 7);
    std::size_t msg_end = line.rfind('`');
    std::size_t msg_begin = line.rfind('`', msg_end - 1);
    if (name_end == std::string::npos || msg_begin <= name_end) continue;
    rows[line.substr(7, name_end - 7)] = line.substr(msg_begin + 1, msg_end - msg_begin - 1);
  }
  return rows;
}

std::string load_error(const std::filesystem::path& path) {
  try {
    if (detect_file_kind(path) == FileKind::Suite)
      (void)Suite::load(path);
    else
      (void)SpecSheet::load(path);
  } catch (const FileError& e) {
    return e.what();
  }
  return "loaded without error";
}

TEST(MalformedFiles, TheDocsTableHasAtLeastTwentyRowsAndCoversEveryFile) {
  auto rows = documented_messages();
  EXPECT_GE(rows.size(), 20u);
  std::set<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(kBad))
    files.insert(e.path().filename().string());
  for (const auto& f : files) EXPECT_TRUE(rows.count(f)) << f << " has no row in docs/formats.md";
  for (const auto& [f, msg] : rows) EXPECT_TRUE(files.count(f)) << f << " is documented only";
}

using DocumentedCase = std::pair<std::string, std::string>;  // file name, message

class MalformedFile : public ::testing::TestWithParam<DocumentedCase> {};

TEST_P(MalformedFile, GetsExactlyTheDocumentedMessage) {
  const auto& [name, message] = GetParam();
  const std::filesystem::path path = kBad / name;
  EXPECT_EQ(load_error(path), path.string() + ":" + message);
}

std::vector<DocumentedCase> documented_cases() {
  auto rows = documented_messages();
  return {rows.begin(), rows.end()};
}

INSTANTIATE_TEST_SUITE_P(DocsTable, MalformedFile, ::testing::ValuesIn(documented_cases()),
                         [](const ::testing::TestParamInfo<DocumentedCase>& param_info) {
                           std::string n =
                               param_info.param.first.substr(0, param_info.param.first.size() - 4);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

std::vector<std::filesystem::path> xml_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".xml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ShippedFiles, EveryStandardSuiteLoadsWithDescriptionAndWorkloads) {
  const std::set<std::string> expected = {
      "sata-ssd",        "nvme-ssd",      "hdd",       "cloud-disk",
      "client",          "latency-bound", "quick",     "snia-iops",
      "snia-throughput", "snia-latency",  "integrity", "snia-wsat",
      "snia-dirth",      "snia-xsr",      "snia-hir",  "burn-in"};
  std::set<std::string> seen;
  for (const auto& path : xml_files(kSource / "suites")) {
    SCOPED_TRACE(path.string());
    Suite s = Suite::load(path);
    EXPECT_EQ(s.name + ".xml", path.filename().string());  // found by name, so names must agree
    EXPECT_FALSE(s.description.empty());
    // A SNIA PTS test (wsat, dirth, xsr, hir) is one element that runs many workloads itself; the
    // burn-in's surface scan is one element with its two passes (and the self-test after it).
    const bool pts = s.workloads.size() == 1 && s.workloads[0].method_as<PtsMethod>();
    const bool scan = !s.workloads.empty() && s.workloads[0].method->element() == "surface-scan";
    if (!pts && !scan) {
      EXPECT_GE(s.workloads.size(), 3u);
    }
    for (const auto& w : s.workloads) EXPECT_NO_THROW(validate(w.spec)) << w.id();
    seen.insert(s.name);
  }
  EXPECT_EQ(seen, expected);
}

TEST(ShippedFiles, StandardSuitesFollowTheirMethods) {
  const auto dir = kSource / "suites";
  Suite sata = Suite::load(dir / "sata-ssd.xml");  // the datasheet corners
  for (const char* id :
       {"randread-4k-qd32", "randwrite-4k-qd32", "seqread-1m-qd32", "seqwrite-1m-qd32"}) {
    const SuiteWorkload* w = sata.find(id);
    ASSERT_NE(w, nullptr) << id;
    EXPECT_EQ(w->spec.params.iodepth, 32u);
    EXPECT_DOUBLE_EQ(w->spec.params.runtime_s, 60);
    EXPECT_EQ(w->spec.params.size, 5ull << 30);
    EXPECT_TRUE(w->spec.params.direct);
  }
  Suite cloud = Suite::load(dir / "cloud-disk.xml");  // the cloud provider's method
  for (const auto& w : cloud.workloads) {
    EXPECT_EQ(w.spec.params.rw, "randrw");
    EXPECT_EQ(w.spec.params.rwmixread, 70u);
    EXPECT_EQ(w.spec.params.iodepth, 64u);
    EXPECT_EQ(w.spec.params.numjobs, 4u);
    EXPECT_DOUBLE_EQ(w.spec.params.runtime_s, 600);
    // Over the whole device (the provider's method), with the documented cap; fio's random map.
    EXPECT_EQ(w.spec.params.size, 0u);
    EXPECT_EQ(w.spec.max_size, 64ull << 40);
    EXPECT_TRUE(w.spec.params.randommap);
  }
  Suite bound = Suite::load(dir / "latency-bound.xml");  // the latency-bounded IOPS method
  int searches = 0;
  for (const auto& w : bound.workloads) {
    const auto* search = w.method_as<LatencySearchMethod>();
    if (!search) continue;
    ++searches;
    EXPECT_EQ(w.spec.params.bs, 4096u);
    EXPECT_DOUBLE_EQ(search->search().limit_ns, 10e6);
    EXPECT_FALSE(search->search().percentile.has_value());  // mean
    EXPECT_EQ(search->search().label(), "lat.mean");
    EXPECT_FALSE(search->search().bisect);  // every depth, as the method sweeps
    EXPECT_EQ(w.spec.params.size, 0u);      // the whole target
  }
  EXPECT_EQ(searches, 2);
  // The write cliff: the write search runs on a preconditioned device and the 2M write is a
  // sustained write long enough to see the drop (docs/methodology.md).
  const SuiteWorkload* write_search = bound.find("randwrite-4k-lat10ms");
  ASSERT_NE(write_search, nullptr);
  ASSERT_TRUE(write_search->precondition.has_value());
  EXPECT_TRUE(write_search->precondition->independent);
  const SuiteWorkload* seqwrite = bound.find("seqwrite-2m-qd1");
  ASSERT_NE(seqwrite, nullptr);
  const auto* sustained = seqwrite->method_as<SustainedWriteMethod>();
  ASSERT_TRUE(sustained);
  EXPECT_EQ(sustained->how().volume_factor, 0);  // time based
  EXPECT_GE(seqwrite->spec.params.runtime_s, 300);
  Suite quick = Suite::load(dir / "quick.xml");
  double seconds = 0;
  for (const auto& w : quick.workloads) {
    seconds += w.spec.params.runtime_s + w.spec.params.ramp_time_s;
    EXPECT_LE(w.spec.params.size, 64ull << 20);
  }
  EXPECT_LE(seconds, 30);  // the demo must stay short
}

// suites/integrity.xml (docs/integrity.md): a sampled capacity check first, then a verified
// random write and a verified sequential write with an inline backlog, every one destructive.
TEST(ShippedFiles, TheIntegritySuiteVerifiesAndChecksCapacity) {
  Suite s = Suite::load(kSource / "suites" / "integrity.xml");
  ASSERT_EQ(s.workloads.size(), 3u);
  const SuiteWorkload& capacity = s.workloads.front();
  const auto* check = capacity.method_as<CapacityMethod>();
  ASSERT_TRUE(check) << capacity.id();
  EXPECT_EQ(capacity.id(), "capacity-sampled");
  EXPECT_EQ(check->check().samples, 4096u);
  EXPECT_EQ(check->check().interval, 0u);
  EXPECT_EQ(check->check().bs, 4096u);
  EXPECT_TRUE(check->check().direct);
  EXPECT_NE(check->check().algorithm, VerifyAlgorithm::None);

  const SuiteWorkload* random = s.find("verify-randwrite-4k");
  ASSERT_NE(random, nullptr);
  EXPECT_EQ(random->spec.params.rw, "randwrite");
  EXPECT_EQ(random->spec.params.bs, 4096u);
  EXPECT_EQ(random->spec.params.iodepth, 32u);
  EXPECT_EQ(random->spec.verify, VerifyAlgorithm::Xxh3);
  EXPECT_TRUE(random->spec.do_verify);

  const SuiteWorkload* sequential = s.find("verify-seqwrite-128k");
  ASSERT_NE(sequential, nullptr);
  EXPECT_EQ(sequential->spec.params.rw, "write");
  EXPECT_EQ(sequential->spec.verify, VerifyAlgorithm::Xxh3);
  EXPECT_EQ(sequential->spec.verify_backlog, 1024u);
  EXPECT_EQ(sequential->spec.verify_backlog_batch, 128u);
  EXPECT_TRUE(sequential->spec.do_verify);

  for (const SuiteWorkload* w : {random, sequential}) {
    EXPECT_TRUE(w->spec.params.direct) << w->id();
    EXPECT_GT(w->spec.params.runtime_s, 0) << w->id();  // time based: --runtime-scale shortens it
    EXPECT_EQ(w->spec.params.size, 4ull << 30) << w->id();
    // The ledger (4 bytes per block) stays far below the 256 MiB bound.
    EXPECT_LE(w->spec.params.size / w->spec.params.bs * 4, 4ull << 20) << w->id();
    EXPECT_NO_THROW(validate(w->spec)) << w->id();
  }
}

TEST(ShippedFiles, EverySpecSheetLoadsAndItsClaimsNameWorkloadsOfItsSuite) {
  const std::vector<std::filesystem::path> dirs = {kSource / "suites"};
  auto sheets = xml_files(kSource / "specs");
  EXPECT_GE(sheets.size(), 5u);
  for (const auto& path : sheets) {
    SCOPED_TRACE(path.string());
    SpecSheet sheet = SpecSheet::load(path);
    EXPECT_FALSE(sheet.claims.empty());
    Suite suite = Suite::load(resolve_suite_for_sheet(sheet.suite, path, dirs));
    EXPECT_EQ(cross_check(sheet, suite), std::vector<std::string>{});
  }
}

// A claim on a <self-test> (its result is a health testcase, no figure) is refused before any run;
// one on the surface scan's scan.read_bw is not (its workload's rw is write, but the figure is the
// scan's own, not a direction of the workload's counts).
TEST(ShippedFiles, AClaimOnTheBurnInSelfTestIsRefusedByTheCrossCheck) {
  const Suite suite = Suite::load(kSource / "suites" / "burn-in.xml");
  const SpecSheet sheet = SpecSheet::parse(
      "<spec-sheet name=\"b\" suite=\"burn-in\">\n  <match model=\"*\"/>\n  <claims>\n"
      "    <claim workload=\"surface-scan\" metric=\"scan.read_bw\" value=\"100MB/s\"/>\n"
      "    <claim workload=\"extended-self-test\" metric=\"iops\" value=\"1\"/>\n"
      "  </claims>\n</spec-sheet>\n",
      "b.xml");
  const auto warnings = cross_check(sheet, suite);
  ASSERT_EQ(warnings.size(), 1u) << ::testing::PrintToString(warnings);
  EXPECT_EQ(warnings[0],
            "b.xml:5:5: claim on workload 'extended-self-test', a <self-test> whose result is a "
            "testcase of its own, with no figure to claim");
}

// A claim's job= names a job of a group workload; one the suite lacks, on a workload that is no
// group, or on a direction the job lacks is refused before any run, naming the sheet's line.
TEST(GroupClaims, AJobClaimIsCheckedAgainstTheSuitesJobs) {
  const Suite suite = Suite::parse(R"(<suite name="g">
  <workload id="mixed" runtime="10s">
    <job name="reader" rw="randread" iodepth="32"/>
    <job name="writer" rw="write" bs="128k" iodepth="4"/>
  </workload>
  <workload id="plain" rw="randread"/>
</suite>)",
                                   "g.xml");
  const SpecSheet sheet = SpecSheet::parse(
      "<spec-sheet name=\"b\" suite=\"g\">\n  <match model=\"*\"/>\n  <claims>\n"
      "    <claim workload=\"mixed\" metric=\"iops\" value=\"1\"/>\n"
      "    <claim workload=\"mixed\" job=\"reader\" metric=\"read.iops\" value=\"1\"/>\n"
      "    <claim workload=\"mixed\" job=\"writer\" metric=\"write.bw\" value=\"1MB/s\"/>\n"
      "    <claim workload=\"mixed\" metric=\"write.iops\" value=\"1\"/>\n"
      "    <claim workload=\"mixed\" job=\"reeder\" metric=\"iops\" value=\"1\"/>\n"
      "    <claim workload=\"mixed\" job=\"reader\" metric=\"write.iops\" value=\"1\"/>\n"
      "    <claim workload=\"plain\" job=\"reader\" metric=\"iops\" value=\"1\"/>\n"
      "  </claims>\n</spec-sheet>\n",
      "b.xml");
  ASSERT_EQ(sheet.claims.size(), 7u);
  EXPECT_EQ(sheet.claims[1].job, "reader");
  EXPECT_EQ(sheet.claims[1].workload_label(), "mixed job reader");
  const auto warnings = cross_check(sheet, suite);
  ASSERT_EQ(warnings.size(), 3u) << ::testing::PrintToString(warnings);
  EXPECT_EQ(warnings[0],
            "b.xml:8:5: claim on job 'reeder' of workload 'mixed', which has no job of that name "
            "(its jobs: reader, writer)");
  EXPECT_EQ(warnings[1],
            "b.xml:9:5: metric 'write.iops' on job 'reader' of workload 'mixed', which does not "
            "write (rw=randread)");
  EXPECT_EQ(warnings[2],
            "b.xml:10:5: claim on job 'reader' of workload 'plain', which is not a group of jobs "
            "(it has no <job>)");
  // job= with several workloads, and the same claim twice, are refused when the sheet loads.
  auto error = [](const std::string& claims) {
    try {
      (void)SpecSheet::parse(
          "<spec-sheet name=\"b\" suite=\"g\">\n<match model=\"*\"/>\n<claims>\n" + claims +
              "</claims>\n</spec-sheet>\n",
          "b.xml");
    } catch (const FileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("<claim workloads=\"a b\" job=\"r\" metric=\"iops\" value=\"1\"/>\n"),
            "b.xml:4:24: job=\"NAME\" names a job of one workload (workload=\"ID\")");
  EXPECT_EQ(error("<claim workload=\"m\" job=\"r\" metric=\"iops\" value=\"1\"/>\n"
                  "<claim workload=\"m\" job=\"r\" metric=\"iops\" value=\"2\"/>\n"),
            "b.xml:5:1: duplicate claim on m job r iops (first at 4:1)");
}

TEST(ShippedFiles, TheSataSheetCarriesSeed000sClaims) {
  SpecSheet s = SpecSheet::load(kSource / "specs" / "example-sata-ssd.xml");
  std::map<std::string, double> claimed;
  for (const auto& c : s.claims) claimed[c.workload_label() + " " + c.metric.name] = c.value;
  EXPECT_DOUBLE_EQ(claimed["randread-4k-qd32 iops"], 97000);
  EXPECT_DOUBLE_EQ(claimed["randwrite-4k-qd32 iops"], 88000);
  EXPECT_DOUBLE_EQ(claimed["seqread-1m-qd32 bw"], 540e6);
  EXPECT_DOUBLE_EQ(claimed["seqwrite-1m-qd32 bw"], 520e6);
}

TEST(ShippedFiles, TheDemoSheetMatchesOnlyScratchFilesNeverABlockDevice) {
  SpecSheet s = SpecSheet::load(kSource / "specs" / "demo.xml");
  EXPECT_EQ(s.suite, "quick");
  EXPECT_TRUE(s.matches({{"model", "QEMU HARDDISK"}, {"target", "scratch"}}));
  EXPECT_TRUE(s.matches({{"target", "file"}}));
  EXPECT_FALSE(s.matches({{"model", "QEMU HARDDISK"}, {"transport", "sata"}, {"target", "block"}}));
  EXPECT_FALSE(s.matches({})) << "an identity without a target kind is not the demo's";
}

// `storqual check` as a user runs it.
struct Output {
  int status = -1;
  std::string out;
};

Output run_storqual(const std::string& args) {
  std::string cmd = std::string(STORQUAL_BINARY) + " " + args + " 2>&1";
  Output o;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return o;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

TEST(CheckCommand, ShippedFilesAreOk) {
  const std::string specs = (kSource / "specs").string();
  const std::string suites = (kSource / "suites").string();
  Output o = run_storqual("check " + specs + "/example-sata-ssd.xml " + suites +
                          "/quick.xml --suites-dir " + suites);
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("ok: " + specs +
                       "/example-sata-ssd.xml (spec sheet 'Example SATA SSD 500GB', 5 claims)"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("ok: " + suites + "/quick.xml (suite 'quick', 4 workloads)"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("warning"), std::string::npos) << o.out;
}

TEST(CheckCommand, OneWorkloadIsSingularInCheckAndSuites) {
  storqual::testing::ScratchDir dir;
  const std::string suite = (dir.path() / "one.xml").string();
  std::ofstream(suite) << R"(<?xml version="1.0"?>
<suite name="one" description="a single workload">
  <workload id="randread-4k" rw="randread" bs="4k" runtime="1s"/>
</suite>
)";
  Output o = run_storqual("check " + suite);
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("ok: " + suite + " (suite 'one', 1 workload)"), std::string::npos) << o.out;
  o = run_storqual("suites " + suite);
  EXPECT_EQ(o.status, 0) << o.out;
  EXPECT_NE(o.out.find("a single workload (1 workload)"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("1 workloads"), std::string::npos) << o.out;
}

TEST(CheckCommand, StopsAtTheFirstBadFileWithExit2AndItsPosition) {
  const std::string bad = (kBad / "claim-bandwidth-for-iops.xml").string();
  const std::string good = (kSource / "suites" / "quick.xml").string();
  Output o = run_storqual("check " + bad + " " + good);
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find(bad + ":4:61: claim value '540MB/s' is a bandwidth"), std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("ok: " + good), std::string::npos) << o.out;  // stopped at the first
  EXPECT_EQ(run_storqual("check").status, 2);
}

TEST(CheckCommand, RefusesClaimsTheSuiteCannotJudge) {
  storqual::testing::ScratchDir dir;
  const auto sheet = dir.path() / "sheet.xml";
  std::ofstream(sheet) << "<spec-sheet name=\"x\" suite=\"quick\">\n  <match model=\"*\"/>\n"
                          "  <claims>\n"
                          "    <claim workload=\"randrw70-4k\" metric=\"iops\" value=\"1k\"/>\n"
                          "    <claim workload=\"seqread-1m-qd4\" metric=\"write.bw\" "
                          "value=\"1MB/s\"/>\n  </claims>\n</spec-sheet>\n";
  Output o =
      run_storqual("check " + sheet.string() + " --suites-dir " + (kSource / "suites").string());
  EXPECT_EQ(o.status, 2) << o.out;
  EXPECT_NE(o.out.find("storqual check: " + sheet.string() +
                       ":4:5: claim on workload 'randrw70-4k', which suite 'quick' lacks (its "
                       "workloads: randread-4k-qd16, randwrite-4k-qd16, seqread-1m-qd4, "
                       "seqwrite-1m-qd4)"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("ok: "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(":5:5: metric 'write.bw' on workload 'seqread-1m-qd4', which does not "
                       "write"),
            std::string::npos)
      << o.out;
}

TEST(SuitesCommand, ListsEveryStandardSuiteAndShowsFioCommands) {
  const std::string suites = (kSource / "suites").string();
  Output list = run_storqual("suites --suites-dir " + suites);
  EXPECT_EQ(list.status, 0) << list.out;
  for (const char* name : {"sata-ssd", "nvme-ssd", "hdd", "cloud-disk", "client", "latency-bound",
                           "quick", "integrity"})
    EXPECT_NE(("\n" + list.out).find(std::string("\n") + name + " "), std::string::npos) << name;
  Output one = run_storqual("suites cloud-disk --suites-dir " + suites);
  EXPECT_EQ(one.status, 0) << one.out;
  EXPECT_NE(one.out.find("fio --name=randrw70-8k"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("--rwmixread=70"), std::string::npos) << one.out;
  EXPECT_EQ(run_storqual("suites no-such-suite --suites-dir " + suites).status, 2);
}

}  // namespace
}  // namespace storqual::runner
