// SPDX-License-Identifier: Apache-2.0
// fio's flow control (flow, flow_id, flow_sleep; fio's flow.c) on the null engine: the jobs of a
// group workload that share a flow issue their I/Os in the ratio of their weights, with or
// without flow_sleep; jobs of another flow_id, or without a weight, are not held; a job that ends
// leaves its flow (the others then run free and finish). Mechanics only: the ratio follows from
// fio's rule (a job never runs more than one I/O ahead of its share), not from timing.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "runner/base/units.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {
namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

WorkloadSpec group(double runtime_s, Options first, Options second) {
  WorkloadSpec w;
  w.id = "flow";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = "randread";
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.size = 64ull << 20;
  w.params.runtime_s = runtime_s;
  w.jobs.push_back({"first", std::move(first)});
  w.jobs.push_back({"second", std::move(second)});
  validate(w);
  return w;
}

std::uint64_t ios(const reporting::WorkloadResult& r) {
  return (r.read ? r.read->ios : 0) + (r.write ? r.write->ios : 0);
}

// The two jobs' I/Os of a run of the group.
std::pair<std::uint64_t, std::uint64_t> run_pair(const WorkloadSpec& w) {
  const reporting::WorkloadResult r = run_workload(w, RunOptions{});
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.jobs.size(), 2u);
  if (r.jobs.size() != 2) return {0, 0};
  return {ios(r.jobs[0]), ios(r.jobs[1])};
}

// fio's rule keeps each job within one I/O of its share of the flow while both run; each may run
// a few more as the two see the end at slightly different moments.
void expect_ratio(std::uint64_t light, std::uint64_t heavy, unsigned wl, unsigned wh,
                  std::uint64_t at_least = 50) {
  ASSERT_GE(light, at_least) << heavy;
  const double total = static_cast<double>(light + heavy);
  const double want = total * wl / (wl + wh);
  EXPECT_NEAR(static_cast<double>(light), want, 0.01 * total + 4)
      << light << " and " << heavy << " I/Os for weights " << wl << ":" << wh;
}

TEST(FlowRun, JobsOfOneFlowRunInTheRatioOfTheirWeights) {
  const auto [light, heavy] = run_pair(
      group(0.4, {{"rw", "write"}, {"flow", "1"}}, {{"flow", "8"}, {"flow_sleep", "100"}}));
  expect_ratio(light, heavy, 1, 8);
}

TEST(FlowRun, WithoutFlowSleepTheHeldJobLooksAgainAtOnce) {
  // Each held job yields and looks again: how many turns they get in 0.3 s depends on the host's
  // load, the ratio does not.
  const auto [a, b] = run_pair(group(0.3, {{"flow", "2"}}, {{"flow", "2"}}));
  expect_ratio(a, b, 1, 1, 1);
}

TEST(FlowRun, QueuedJobsKeepTheRatio) {
  // The null engine queues up to iodepth: held back with flow_sleep, the job first lets its 8
  // I/Os in flight complete (fio's io_u_quiesce).
  const auto [heavy, light] = run_pair(
      group(0.3, {{"flow", "3"}, {"iodepth", "8"}}, {{"flow", "1"}, {"flow_sleep", "50"}}));
  expect_ratio(light, heavy, 1, 3);
}

TEST(FlowRun, OtherFlowsAndJobsWithoutWeightAreNotHeld) {
  // A weight alone in its flow is its whole share: never held. Were the two jobs one flow, the
  // first would be held to a tenth.
  const auto [a, b] =
      run_pair(group(0.3, {{"flow", "1"}, {"flow_id", "1"}}, {{"flow", "9"}, {"flow_id", "2"}}));
  EXPECT_GT(a, b / 5) << a << " and " << b;
  const auto [c, d] = run_pair(group(0.3, {{"flow", "1"}}, {}));
  EXPECT_GT(c, d / 5) << c << " and " << d;
}

TEST(FlowRun, AJobThatEndsLeavesItsFlow) {
  // Size-based: each job reads its 1 MiB once (256 I/Os). The light one would be held to a
  // ninth of the flow for ever once the heavy one ended, were the heavy one's I/Os still counted.
  WorkloadSpec w = group(0, {{"rw", "read"}, {"size", "1m"}, {"flow", "1"}},
                         {{"rw", "read"}, {"size", "1m"}, {"offset", "1m"}, {"flow", "8"}});
  const auto [light, heavy] = run_pair(w);
  EXPECT_EQ(light, 256u);
  EXPECT_EQ(heavy, 256u);
}

TEST(FlowRun, TheOptionsAreFiosAndWriteBack) {
  WorkloadSpec w;
  set_workload_option(w, "flow", "8");
  set_workload_option(w, "flow_id", "3");
  set_workload_option(w, "flow_sleep", "1000");
  EXPECT_EQ(w.flow, 8u);
  EXPECT_EQ(w.flow_id, 3u);
  EXPECT_EQ(w.flow_sleep_us, 1000u);
  EXPECT_EQ(pacing_options(w),
            (std::vector<std::string>{"flow=8", "flow_id=3", "flow_sleep=1000"}));
  EXPECT_NE(fio_command(w).find("--flow=8 --flow_id=3 --flow_sleep=1000"), std::string::npos)
      << fio_command(w);
  EXPECT_THROW(set_workload_option(w, "flow", "1001"), UnitError);  // fio's range: 0 to 1000
  EXPECT_THROW(set_workload_option(w, "flow", "-1"), UnitError);
  EXPECT_THROW(set_workload_option(w, "flow_sleep", "1ms"), UnitError);  // fio's: microseconds
}

}  // namespace
}  // namespace storqual::runner
