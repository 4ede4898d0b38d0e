// SPDX-License-Identifier: Apache-2.0
// fio's flow control imported (runner/specs/fio_option_table.cpp: flow, flow_id, flow_sleep):
// flow.fio's and butterfly.fio's jobs become one group workload whose jobs keep their weights,
// and the suite XML and the exported job file carry them back.
#include <gtest/gtest.h>

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

// fio's flow.fio (Debian's fio-examples), its 100g region made 1g.
constexpr const char* kFlow =
    "[global]\nnorandommap\nthread\ntime_based\nruntime=30\ndirect=1\nioengine=libaio\n"
    "iodepth=256\nsize=1g\nbs=8k\nfilename=/tmp/testfile\nflow_sleep=1000\n"
    "[job2]\nnumjobs=1\nrw=write\nflow=1\n[job1]\nnumjobs=1\nrw=randread\nflow=8\n";

TEST(FioFlowImport, FlowJobsAreOneGroupWithTheirWeights) {
  const FioImport im = import_text(kFlow);
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  const WorkloadSpec& w = im.suite.workloads[0].spec;
  const auto members = group_members(w);
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].id, "job2");
  EXPECT_EQ(members[0].flow, 1u);
  EXPECT_EQ(members[1].flow, 8u);
  EXPECT_EQ(members[0].flow_sleep_us, 1000u);
  EXPECT_EQ(members[1].flow_sleep_us, 1000u);
  EXPECT_EQ(members[1].flow_id, 0u);
  // The suite XML reads back to the same members; the job file has each job's weight.
  const Suite back = Suite::parse(suite_xml_text(im.suite), "back.xml");
  const auto again = group_members(back.workloads.at(0).spec);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(pacing_options(again[0]), pacing_options(members[0]));
  EXPECT_EQ(pacing_options(again[1]), pacing_options(members[1]));
  const std::string job = fio_job_text(im.suite, "/dev/zram9");
  const auto job2 = job.find("[job2]"), job1 = job.find("[job1]");
  ASSERT_NE(job2, std::string::npos) << job;
  ASSERT_NE(job1, std::string::npos) << job;
  EXPECT_NE(job.find("flow=1\nflow_sleep=1000\n", job2), std::string::npos) << job;
  EXPECT_NE(job.find("flow=8\nflow_sleep=1000\n", job1), std::string::npos) << job;
  // And the export imports back as the same group.
  const FioImport round = import_text(job);
  EXPECT_EQ(pacing_options(group_members(round.suite.workloads.at(0).spec)[1]),
            pacing_options(members[1]));
}

TEST(FioFlowImport, ButterflyIsForwardAndBackwardInOneFlow) {
  const FioImport im = import_text(
      "[global]\nfilename=/tmp/testfile\nbs=4k\ndirect=1\n[forward]\nrw=read\nflow=2\n"
      "[backward]\nrw=read:-8k\nflow=2\n");
  ASSERT_EQ(im.suite.workloads.size(), 1u);
  const auto members = group_members(im.suite.workloads[0].spec);
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].seq_add, 0);
  EXPECT_EQ(members[1].seq_add, -8192);
  EXPECT_EQ(members[0].flow, 2u);
  EXPECT_EQ(members[1].flow, 2u);
  EXPECT_EQ(members[1].flow_sleep_us, 0u);
}

TEST(FioFlowImport, RefusesWhatFioRefuses) {
  for (const char* bad : {"[j]\nflow=1001\n", "[j]\nflow=-1\n", "[j]\nflow=1,2\n"}) {
    try {
      (void)import_text(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const FileError& e) {
      EXPECT_NE(std::string(e.what()).find("option 'flow="), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace storqual::runner
