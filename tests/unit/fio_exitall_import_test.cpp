// SPDX-License-Identifier: Apache-2.0
// fio's exitall and exit_what imported (runner/specs/fio_suite.cpp take_exitall): exitwhat.fio's
// jobs keep fio's groups (new_group, stonewall) as exit_group and their exit_what as exitall;
// exit_what=all leaves out the jobs fio never starts; the suite XML and the exported job file
// carry them back, and an export that fio would run otherwise is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "runner/base/units.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/specs/fio_job.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/fio_text.hpp"

namespace storqual::runner {
namespace {

FioImport import_text(const std::string& text) {
  return testing::import_fio_text(text);
}

bool noted(const FioImport& im, const std::string& what) {
  return std::any_of(im.ignored.begin(), im.ignored.end(),
                     [&](const std::string& n) { return n.find(what) != std::string::npos; });
}

// fio's exitwhat.fio (Debian's fio-examples), as it is.
constexpr const char* kExitwhat =
    "[global]\nfilename=/tmp/test\nfilesize=1G\nblocksize=4096\ngroup_reporting\nexitall=1\n"
    "[slow1]\nrw=read\nnumjobs=1\nioengine=sync\nnew_group=1\nthinktime=2000\nnumber_ios=1000\n"
    "exit_what=stonewall\n"
    "[fast1]\nnew_group=1\nrw=randrw\nnumjobs=3\nioengine=libaio\niodepth=32\nrate=300,300,300\n"
    "[slow2]\nstonewall\nrw=write\nnumjobs=1\nioengine=sync\nnew_group=1\nthinktime=2000\n"
    "number_ios=1000\nexit_what=all\n"
    "[fast2]\nrw=randrw\nnumjobs=3\nioengine=libaio\niodepth=32\nrate=300,300,300\n"
    "[runsnever]\nrw=randrw\nnumjobs=3\nioengine=libaio\niodepth=32\nrate=300,300,300\n";

TEST(FioExitallImport, ExitwhatKeepsFiosGroupsAndExits) {
  const FioImport im = import_text(kExitwhat);
  ASSERT_EQ(im.suite.workloads.size(), 2u);
  const auto first = group_members(im.suite.workloads[0].spec);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].exitall, ExitScope::Stonewall);  // slow1: exit_what=stonewall
  EXPECT_EQ(first[0].exit_group, 0u);
  EXPECT_EQ(first[1].exitall, ExitScope::Group);  // fast1: fio's default exit_what, its own group
  EXPECT_EQ(first[1].exit_group, 1u);
  EXPECT_EQ(first[1].params.numjobs, 3u);
  EXPECT_EQ(first[0].thinktime_s, 0.002);
  EXPECT_EQ(first[1].thinktime_s, 0);  // fast1 thinks not, though the group's first job does
  EXPECT_EQ(first[1].number_ios, 0u);
  const auto second = group_members(im.suite.workloads[1].spec);
  ASSERT_EQ(second.size(), 2u);  // fast2 and runsnever are 6 copies of one job
  EXPECT_EQ(second[0].exitall, ExitScope::Stonewall);  // slow2: exit_what=all
  EXPECT_EQ(second[1].exitall, ExitScope::Group);
  EXPECT_EQ(second[1].exit_group, 0u);  // one group with slow2 (no new_group)
  EXPECT_EQ(second[1].params.numjobs, 6u);
  EXPECT_TRUE(noted(im, "option 'exit_what=all': when job 'slow2' ends"));
  EXPECT_TRUE(noted(im, "option 'new_group': with exitall"));
  // The suite XML and fio's job file carry them back.
  const Suite back = Suite::parse(suite_xml_text(im.suite), "back.xml");
  const auto again = group_members(back.workloads.at(0).spec);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[1].exitall, ExitScope::Group);
  EXPECT_EQ(again[1].exit_group, 1u);
  EXPECT_EQ(again[1].thinktime_s, 0);
  const std::string job = fio_job_text(im.suite, "/dev/zram9");
  const auto fast1 = job.find("[fast1]");
  ASSERT_NE(fast1, std::string::npos) << job;
  EXPECT_NE(job.find("exitall\nexit_what=group\n", fast1), std::string::npos) << job;
  EXPECT_NE(job.find("new_group\n", fast1), std::string::npos) << job;
  EXPECT_LT(job.find("new_group\n", fast1), job.find("[slow2]")) << job;
  EXPECT_NE(job.find("exitall\nexit_what=stonewall\n"), std::string::npos) << job;
  const FioImport round = import_text(job);
  ASSERT_EQ(round.suite.workloads.size(), 2u);
  const auto r1 = group_members(round.suite.workloads[0].spec);
  ASSERT_EQ(r1.size(), 2u);
  EXPECT_EQ(r1[1].exit_group, 1u);
  EXPECT_EQ(r1[1].exitall, ExitScope::Group);
}

TEST(FioExitallImport, ExitWhatAllLeavesOutTheJobsAfterIt) {
  const FioImport im = import_text(
      "[global]\nexitall\nsize=1m\n[a]\nexit_what=all\n[b]\nstonewall\n[c]\nstonewall\n");
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  EXPECT_EQ(im.suite.workloads[0].spec.exitall, ExitScope::Stonewall);
  EXPECT_TRUE(noted(im, "the import leaves out the jobs after it"));
}

TEST(FioExitallImport, WithoutExitallExitWhatChangesNothing) {
  const FioImport im = import_text("[a]\nsize=1m\nexit_what=stonewall\n");
  EXPECT_EQ(im.suite.workloads.at(0).spec.exitall, ExitScope::None);
}

TEST(FioExitallImport, RefusesWhatItCannotRun) {
  const auto refusal = [](const std::string& text) -> std::string {
    try {
      (void)import_text(text);
    } catch (const FileError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refusal("[a]\nexit_what=some\n").find("option 'exit_what=some'"), std::string::npos);
  EXPECT_NE(
      refusal("[global]\nexitall\nsize=1m\n[a]\n[b]\nwait_for=a\n").find("exitall with wait_for"),
      std::string::npos);
  // A suite with exitall on one workload and several jobs without it on another: fio's exitall is
  // the whole file's.
  Suite s = import_text("[a]\nsize=1m\nnumjobs=2\n[b]\nstonewall\nsize=1m\n").suite;
  s.workloads[1].spec.exitall = ExitScope::Group;
  EXPECT_THROW((void)fio_job_text(s, "/dev/zram9"), UsageError);
}

}  // namespace
}  // namespace storqual::runner
