// SPDX-License-Identifier: Apache-2.0
// fio's exitall on the null engine (WorkloadSpec::exitall, docs/formats.md): when a job with
// exitall=stonewall ends, every job of its workload ends, and a timed workload ends then; with
// exitall=group only the jobs of its exit_group end, the others run their course. Mechanics only:
// a job that would take seconds by its own rate ends with the job that ended it.
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

WorkloadSpec group(double runtime_s, std::vector<GroupJob> jobs) {
  WorkloadSpec w;
  w.id = "exitall";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = "randread";
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.size = 64ull << 20;  // 16384 blocks
  w.params.runtime_s = runtime_s;
  w.jobs = std::move(jobs);
  validate(w);
  return w;
}

std::uint64_t ios(const reporting::WorkloadResult& r) {
  return (r.read ? r.read->ios : 0) + (r.write ? r.write->ios : 0);
}

// A job that ends by itself after 20 I/Os, and one that would take 16 s at its rate.
const Options kShort = {{"number_ios", "20"}, {"exitall", "stonewall"}};
const Options kLong = {{"rate_iops", "1000"}};

TEST(ExitallRun, StonewallEndsEveryJobOfTheWorkload) {
  const reporting::WorkloadResult r =
      run_workload(group(0, {{"short", kShort}, {"long", kLong}}), RunOptions{});
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(ios(r.jobs[0]), 20u);
  EXPECT_LT(ios(r.jobs[1]), 16384u);
  EXPECT_FALSE(r.interrupted);  // ended, not stopped
}

TEST(ExitallRun, AnEndedTimedWorkloadIsMeasuredUntilItsEnd) {
  // 20 s of runtime, ended after 20 I/Os: its window is the time until then, not 20 s.
  const reporting::WorkloadResult r =
      run_workload(group(20, {{"short", kShort}, {"long", kLong}}), RunOptions{});
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_LT(r.elapsed_s, 20);
  EXPECT_GT(r.elapsed_s, 0);
}

TEST(ExitallRun, GroupEndsOnlyTheJobsOfItsExitGroup) {
  const reporting::WorkloadResult r = run_workload(
      group(0, {{"short", {{"number_ios", "20"}, {"exitall", "group"}}},
                {"long", kLong},
                {"other", {{"exit_group", "1"}, {"number_ios", "300"}, {"thinktime", "1ms"}}}}),
      RunOptions{});
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(ios(r.jobs[0]), 20u);
  EXPECT_LT(ios(r.jobs[1]), 16384u);
  EXPECT_EQ(ios(r.jobs[2]), 300u);  // another group: it runs its 300 I/Os (0.3 s of think time)
}

TEST(ExitallRun, TheOptionsAndTheirChecks) {
  WorkloadSpec w;
  set_workload_option(w, "exitall", "stonewall");
  set_workload_option(w, "exit_group", "2");
  EXPECT_EQ(w.exitall, ExitScope::Stonewall);
  EXPECT_EQ(exit_options(w), (std::vector<std::string>{"exitall", "exit_what=stonewall"}));
  EXPECT_NE(fio_command(w).find(" --exitall --exit_what=stonewall"), std::string::npos)
      << fio_command(w);
  EXPECT_THROW(set_workload_option(w, "exitall", "all"), UnitError);
  // fio's groups are runs of jobs in file order.
  EXPECT_THROW(group(0, {{"a", {{"exit_group", "1"}}}, {"b", {{"exit_group", "0"}}}}), UnitError);
  const WorkloadSpec two = group(0, {{"a", {{"exitall", "group"}}}, {"b", {{"exit_group", "1"}}}});
  EXPECT_NE(fio_command(two).find("--exitall --exit_what=group"), std::string::npos);
  EXPECT_NE(fio_command(two).find("--new_group"), std::string::npos) << fio_command(two);
}

}  // namespace
}  // namespace storqual::runner
