// SPDX-License-Identifier: Apache-2.0
// Suites: defaults and overrides through the workload option table, latency searches, lookup of
// standard suites by name.
#include "runner/specs/suite.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "runner/base/xml_file.hpp"
#include "runner/methods/latency_search/latency_search.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

constexpr const char* kSuite = R"(<suite name="mine" description="a test suite">
  <workload id="first" rw="randread" bs="4k" iodepth="32"/>
  <defaults direct="1" runtime="60s" ramp_time="5s" size="5g" numjobs="2"/>
  <workload id="seqwrite-1m" rw="write" bs="1m" iodepth="8" numjobs="1" runtime="1m"/>
  <latency-search id="randread-lat" rw="randread" bs="4k" max_iodepth="256" limit="10ms" stat="p99.9"/>
  <latency-search id="randwrite-lat" rw="randwrite" limit="2.5ms"/>
  <workload id="mix" rw="randrw" rwmixwrite="30" bs="16k"/>
</suite>
)";

std::string load_error(const std::string& xml) {
  try {
    (void)Suite::parse(xml, "suite.xml");
  } catch (const FileError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Suite, DefaultsApplyToEveryWorkloadWhereverTheyStand) {
  Suite s = Suite::parse(kSuite, "suite.xml");
  EXPECT_EQ(s.name, "mine");
  EXPECT_EQ(s.description, "a test suite");
  ASSERT_EQ(s.workloads.size(), 5u);
  const auto& first = s.workloads[0].spec;
  EXPECT_EQ(first.id, "first");
  EXPECT_EQ(first.params.iodepth, 32u);
  EXPECT_EQ(first.params.numjobs, 2u);
  EXPECT_DOUBLE_EQ(first.params.runtime_s, 60);
  EXPECT_DOUBLE_EQ(first.params.ramp_time_s, 5);
  EXPECT_EQ(first.params.size, 5ull << 30);
  EXPECT_EQ(s.workloads[0].location, "suite.xml:2:3");

  const auto& seq = s.workloads[1].spec;  // its own values win over the defaults
  EXPECT_EQ(seq.params.rw, "write");
  EXPECT_EQ(seq.params.bs, 1u << 20);
  EXPECT_EQ(seq.params.numjobs, 1u);
  EXPECT_DOUBLE_EQ(seq.params.runtime_s, 60);
  EXPECT_FALSE(s.workloads[1].method_as<LatencySearchMethod>());

  const auto& mix = s.find("mix")->spec;
  EXPECT_EQ(mix.params.rwmixread, 70u);
  EXPECT_EQ(mix.params.bs, 16384u);
  EXPECT_EQ(s.find("nope"), nullptr);
}

TEST(Suite, LatencySearchKeepsItsParameters) {
  Suite s = Suite::parse(kSuite, "suite.xml");
  const SuiteWorkload* w = s.find("randread-lat");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->method_as<LatencySearchMethod>());
  EXPECT_EQ(w->method_as<LatencySearchMethod>()->search().max_iodepth, 256u);
  EXPECT_DOUBLE_EQ(w->method_as<LatencySearchMethod>()->search().limit_ns, 10e6);
  ASSERT_TRUE(w->method_as<LatencySearchMethod>()->search().percentile.has_value());
  EXPECT_DOUBLE_EQ(*w->method_as<LatencySearchMethod>()->search().percentile, 99.9);
  EXPECT_EQ(w->spec.params.iodepth, 1u);
  EXPECT_EQ(w->spec.params.size, 5ull << 30);  // defaults apply to searches too

  const SuiteWorkload* d = s.find("randwrite-lat");
  ASSERT_TRUE(d->method_as<LatencySearchMethod>());
  EXPECT_EQ(d->method_as<LatencySearchMethod>()->search().max_iodepth, 1024u);  // default
  EXPECT_FALSE(d->method_as<LatencySearchMethod>()->search().percentile.has_value());
  EXPECT_EQ(d->method_as<LatencySearchMethod>()->search().stat, "mean");
  EXPECT_DOUBLE_EQ(d->method_as<LatencySearchMethod>()->search().limit_ns, 2.5e6);
}

TEST(Suite, EveryWorkloadHasAnEquivalentFioCommand) {
  Suite s = Suite::parse(kSuite, "suite.xml");
  std::string seq = s.find("seqwrite-1m")->fio_equivalent();
  EXPECT_NE(seq.find("fio --name=seqwrite-1m"), std::string::npos) << seq;
  EXPECT_NE(seq.find("--rw=write --bs=1m --iodepth=8"), std::string::npos) << seq;
  EXPECT_NE(seq.find("--size=5g"), std::string::npos) << seq;
  std::string search = s.find("randread-lat")->fio_equivalent();
  EXPECT_NE(search.find("--iodepth=256"), std::string::npos) << search;
  EXPECT_NE(search.find("latency search: iodepth 1..256"), std::string::npos) << search;
  EXPECT_NE(search.find("p99.9"), std::string::npos) << search;
  EXPECT_EQ(seq.find("early stop"), std::string::npos) << seq;
  // A workload with an early-stop rule says so: fio would run it to its time limit.
  Suite early = Suite::parse(R"(<suite name="e">
    <defaults runtime="60s" size="1g" early_stop="ci:1%@95"/>
    <workload id="rr" rw="randread"/>
  </suite>)",
                             "e.xml");
  const std::string rr = early.find("rr")->fio_equivalent();
  EXPECT_NE(rr.find("--runtime=60s"), std::string::npos) << rr;
  EXPECT_NE(rr.find("# early stop ci:1%@95: storqual may end it before the runtime"),
            std::string::npos)
      << rr;
}

TEST(Suite, DuplicateIdsAreRefusedAtTheSecond) {
  EXPECT_EQ(load_error("<suite name=\"s\">\n  <workload id=\"a\"/>\n  <workload id=\"b\"/>\n"
                       "  <latency-search id=\"a\" limit=\"1ms\"/>\n</suite>"),
            "suite.xml:4:19: duplicate workload id 'a' (first at 2:3)");
}

TEST(Suite, OptionErrorsComeFromTheOptionTableAtTheValue) {
  EXPECT_EQ(load_error("<suite name=\"s\"><workload id=\"a\" numjobs=\"2000\"/></suite>"),
            "suite.xml:1:43: numjobs 2000 is out of range (1..1024)");
  EXPECT_EQ(load_error("<suite name=\"s\"><workload id=\"a\" rwmixread=\"70.5\"/></suite>"),
            "suite.xml:1:45: rwmixread must be a whole percentage 0..100");
  EXPECT_EQ(load_error("<suite name=\"s\"><workload id=\"a\" direct=\"yes please\"/></suite>"),
            "suite.xml:1:42: direct: expected 0 or 1, got 'yes please'");
}

constexpr const char* kGroup = R"(<suite name="g">
  <defaults runtime="30s" size="1g" ioengine="libaio"/>
  <workload id="mixed" direct="1" iodepth="2">
    <job name="reader" rw="randread" bs="4k" iodepth="32"/>
    <job name="writer" rw="write" bs="128k" numjobs="2" ioengine="psync"/>
  </workload>
</suite>
)";

TEST(SuiteGroups, JobsInheritTheWorkloadsOptionsAndSetTheirOwn) {
  const Suite s = Suite::parse(kGroup, "g.xml");
  ASSERT_EQ(s.workloads.size(), 1u);
  const WorkloadSpec& group = s.workloads[0].spec;
  ASSERT_EQ(group.jobs.size(), 2u);
  EXPECT_EQ(group.params.runtime_s, 30);
  const std::vector<WorkloadSpec> jobs = group_members(group);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "reader");
  EXPECT_EQ(jobs[0].params.rw, "randread");
  EXPECT_EQ(jobs[0].params.iodepth, 32u);
  EXPECT_EQ(jobs[0].params.ioengine, "libaio");  // <defaults>, through the workload
  EXPECT_EQ(jobs[1].id, "writer");
  EXPECT_EQ(jobs[1].params.bs, 128u << 10);
  EXPECT_EQ(jobs[1].params.iodepth, 2u);  // the workload's
  EXPECT_EQ(jobs[1].params.numjobs, 2u);
  EXPECT_EQ(jobs[1].params.ioengine, "psync");
  for (const WorkloadSpec& j : jobs) {
    EXPECT_EQ(j.params.runtime_s, 30);  // the group's one window
    EXPECT_EQ(j.params.size, 1ull << 30);
    EXPECT_TRUE(j.params.direct);
  }
  EXPECT_TRUE(reads(group));
  EXPECT_TRUE(writes(group));
  EXPECT_EQ(s.workloads[0].method->summary_line(group),
            "group of 2 jobs, 30s: reader randread 4k QD32 x1; writer write 128k QD2 x2");
  // The fio command: one --name per job, no group_reporting (fio would add them up).
  const std::string cmd = fio_command(group);
  EXPECT_NE(cmd.find("--name=reader "), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("--name=writer "), std::string::npos) << cmd;
  EXPECT_EQ(cmd.find("group_reporting"), std::string::npos) << cmd;
}

TEST(SuiteGroups, MistakesAreRefusedWhereTheyAre) {
  auto group = [](const std::string& jobs, const std::string& attrs = "") {
    return "<suite name=\"s\">\n<workload id=\"m\"" + attrs + ">\n" + jobs +
           "</workload>\n</suite>";
  };
  const std::string two = "<job name=\"a\"/>\n<job name=\"b\" rw=\"write\"/>\n";
  EXPECT_EQ(load_error(group("<job name=\"a\"/>\n<job name=\"a\" rw=\"write\"/>\n")),
            "suite.xml:4:6: duplicate job name 'a' (first at 3:1)");
  EXPECT_EQ(load_error(group("<job name=\"a\" depth=\"4\"/>\n<job name=\"b\"/>\n"))
                .rfind("suite.xml:3:15: unknown attribute 'depth' on <job> (expected name, or a "
                       "workload option: ",
                       0),
            0u);
  EXPECT_EQ(load_error(group("<job name=\"a\" iodepth=\"0\"/>\n<job name=\"b\"/>\n")),
            "suite.xml:3:24: iodepth 0 is out of range (1..65536)");
  EXPECT_EQ(load_error(group("<job name=\"a\" runtime=\"5s\"/>\n<job name=\"b\"/>\n")),
            "suite.xml:3:15: runtime is the group's: its jobs run together over one measured "
            "window (set it on the <workload>)");
  EXPECT_EQ(load_error(group("<job rw=\"read\"/>\n<job name=\"b\"/>\n")),
            "suite.xml:3:1: <job> needs attribute 'name'");
  EXPECT_EQ(load_error(group("<job name=\"only\"/>\n")),
            "suite.xml:3:1: a group needs at least two <job>s (one job's options belong on the "
            "<workload>)");
  EXPECT_EQ(load_error(group(two, " rounds=\"5\"")),
            "suite.xml:2:1: a group of jobs (<job>) runs once: it cannot run in rounds to steady "
            "state (rounds, round_time, steady_metric, dependent preconditioning)");
  EXPECT_EQ(load_error(group(two, " verify=\"crc32c\" rw=\"write\"")),
            "suite.xml:2:1: workload 'm': verify on a group of jobs: its jobs would write over "
            "each other's blocks");
  // A job's combination is checked at the job.
  EXPECT_EQ(load_error(group("<job name=\"a\" size=\"1k\" bs=\"4k\"/>\n<job name=\"b\"/>\n")),
            "suite.xml:3:1: workload 'm', job 'a': size 1k is smaller than bs 4k");
  // Only a <workload> holds jobs.
  EXPECT_NE(load_error("<suite name=\"s\"><latency-search id=\"l\" limit=\"1ms\"><job name=\"a\"/>"
                       "</latency-search></suite>")
                .find("unknown element <job> in <latency-search> (expected <precondition>)"),
            std::string::npos);
}

class SuiteLookup : public ::testing::Test {
 protected:
  void write(const std::filesystem::path& p, const std::string& name) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << "<suite name=\"" << name << "\"><workload id=\"w\"/></suite>\n";
  }
  storqual::testing::ScratchDir dir_;
};

TEST_F(SuiteLookup, PathFirstThenNameInEachDirectoryInOrder) {
  auto a = dir_.path() / "a";
  auto b = dir_.path() / "b";
  write(a / "fast.xml", "fast-from-a");
  write(b / "fast.xml", "fast-from-b");
  write(b / "slow.xml", "slow");
  EXPECT_EQ(resolve_suite("fast", {a, b}), a / "fast.xml");
  EXPECT_EQ(resolve_suite("fast", {b, a}), b / "fast.xml");
  EXPECT_EQ(resolve_suite("slow", {a, b}), b / "slow.xml");
  EXPECT_EQ(resolve_suite((b / "fast.xml").string(), {a}), b / "fast.xml");
  EXPECT_THROW((void)resolve_suite((a / "none.xml").string(), {a, b}), FileError);
  try {
    (void)resolve_suite("none", {a, b});
    FAIL();
  } catch (const FileError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("suite 'none' not found"), std::string::npos) << m;
    EXPECT_NE(m.find("standard suites: fast, slow"), std::string::npos) << m;
  }
  auto files = list_suite_files({a, b});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0], a / "fast.xml");
  EXPECT_EQ(files[1], b / "slow.xml");
}

TEST_F(SuiteLookup, ASheetsSuitePathIsRelativeToTheSheet) {
  auto sheets = dir_.path() / "sheets";
  write(sheets / "own" / "mine.xml", "mine");
  write(dir_.path() / "std" / "quick.xml", "quick");
  EXPECT_EQ(resolve_suite_for_sheet("own/mine.xml", sheets / "x.xml", {dir_.path() / "std"}),
            sheets / "own" / "mine.xml");
  EXPECT_EQ(resolve_suite_for_sheet("quick", sheets / "x.xml", {dir_.path() / "std"}),
            dir_.path() / "std" / "quick.xml");
}

TEST(SuiteLookupDefaults, TheShareDirectoryIsBesideTheBinarysBinFolder) {
  // This test binary is <build>/tests/suite_test: its "prefix" is <build>.
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(installed_data_dir(), exe.parent_path().parent_path() / "share" / "storqual");
}

TEST(SuiteLookupDefaults, TheSourceTreeSuitesAreFound) {
  auto dirs = default_suite_dirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_NO_THROW((void)resolve_suite("quick", dirs));
}

}  // namespace
}  // namespace storqual::runner
