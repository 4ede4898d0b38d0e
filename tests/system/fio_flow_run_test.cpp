// SPDX-License-Identifier: Apache-2.0
// fio's examples of jobs that run together, imported and run on a real file (docs/fio-files.md):
// flow.fio's writer and reader (weights 1 and 8, flow_sleep=1000) issue their I/Os 1:8,
// butterfly.fio's forward and backward readers (weights 2 and 2) each read the whole file once,
// one upwards from its start and one downwards, and both end (each leaves the flow when it is
// done); exitwhat.fio's fast jobs, which would read and write 1 GiB at 600 I/Os per second, end
// when its slow job's 1000 I/Os are done (exit_what=stonewall, exit_what=all). Mechanics only:
// the ratio is fio's rule (a job is never more than one I/O ahead of its share), not a timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "runner/measure/job_runner.hpp"
#include "runner/specs/fio_job.hpp"
#include "runner/specs/fio_suite.hpp"
#include "runner/specs/suite.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

using storqual::testing::ScratchDir;

constexpr const char* kExamples = "/usr/share/doc/fio/examples/";

// An example job file of Debian's fio-examples, with `edits` (whole lines) replaced.
std::string example(const std::string& name, const std::map<std::string, std::string>& edits) {
  std::ifstream in(std::string(kExamples) + name);
  EXPECT_TRUE(in) << kExamples << name << " (Debian's fio-examples) is needed";
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const auto e = edits.find(line);
    out += (e == edits.end() ? line : e->second) + "\n";
  }
  return out;
}

std::vector<WorkloadSpec> all_imported(const std::string& text,
                                       const std::filesystem::path& target) {
  const FioImport im =
      import_fio_jobs(parse_fio_job_text(text, "t.fio", FioEnvironment::of_this_host()), "t");
  std::vector<WorkloadSpec> out;
  for (const SuiteWorkload& w : im.suite.workloads) {
    out.push_back(w.spec);
    out.back().params.target = target.string();
  }
  return out;
}

WorkloadSpec imported(const std::string& text, const std::filesystem::path& target) {
  const auto all = all_imported(text, target);
  EXPECT_EQ(all.size(), 1u);
  return all.at(0);
}

std::uint64_t ios(const reporting::WorkloadResult& r) {
  return (r.read ? r.read->ios : 0) + (r.write ? r.write->ios : 0);
}

TEST(FioFlowRun, FlowExampleRunsItsJobsOneToEight) {
  ScratchDir dir;
  const auto target = dir / "testfile";
  storqual::testing::write_random_file(target, 64ull << 20);
  // The example's 100g region and 30 s made 64m and 1 s.
  WorkloadSpec w = imported(
      example("flow.fio", {{"size=100g", "size=64m"}, {"runtime=30", "runtime=1"}}), target);
  const reporting::WorkloadResult r = run_workload(w, RunOptions{});
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_EQ(r.jobs.size(), 2u);
  const std::uint64_t writer = ios(r.jobs[0]), reader = ios(r.jobs[1]);
  ASSERT_GT(writer, 20u);
  ASSERT_TRUE(r.jobs[0].write && !r.jobs[0].read);
  ASSERT_TRUE(r.jobs[1].read && !r.jobs[1].write);
  // Issued 1:8 within one I/O; completed, each may have had up to its iodepth (256) in flight.
  const double total = static_cast<double>(writer + reader);
  EXPECT_NEAR(static_cast<double>(writer), total / 9, 0.01 * total + 2 * 256 + 4)
      << writer << " writes and " << reader << " reads";
}

TEST(FioFlowRun, ButterflyReadsTheFileFromBothEnds) {
  ScratchDir dir;
  const auto target = dir / "testfile";
  storqual::testing::write_random_file(target, 2ull << 20);
  WorkloadSpec w = imported(example("butterfly.fio", {}), target);
  RunOptions o;
  o.lat_log_path = (dir / "lat.csv").string();
  const reporting::WorkloadResult r = run_workload(w, o);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_EQ(ios(r.jobs[0]), 512u);  // 2 MiB of 4 KiB reads each
  EXPECT_EQ(ios(r.jobs[1]), 512u);
  // The log: each job's lines together (written per job); forward's offsets go up from 0,
  // backward's (after its first at 0) down from the end.
  std::ifstream log(o.lat_log_path);
  std::vector<std::uint64_t> offsets;
  for (std::string line; std::getline(log, line);) {
    std::istringstream in(line);
    std::string t, clat, dir_, size, offset;
    std::getline(in, t, ',');
    std::getline(in, clat, ',');
    std::getline(in, dir_, ',');
    std::getline(in, size, ',');
    std::getline(in, offset);
    offsets.push_back(std::stoull(offset));
  }
  ASSERT_EQ(offsets.size(), 1024u);
  std::size_t up = 0, down = 0;
  for (std::size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] == offsets[i - 1] + 4096) ++up;
    if (offsets[i] + 4096 == offsets[i - 1]) ++down;
  }
  EXPECT_GE(up, 500u);
  EXPECT_GE(down, 500u);
}

TEST(FioFlowRun, ExitwhatEndsTheFastJobsWithTheSlowOne) {
  ScratchDir dir;
  const auto target = dir / "test";
  { std::ofstream make(target); }
  std::filesystem::resize_file(target, 1ull << 30);  // the example's filesize=1G, sparse
  const auto workloads = all_imported(example("exitwhat.fio", {}), target);
  ASSERT_EQ(workloads.size(), 2u);
  for (const WorkloadSpec& w : workloads) {
    const reporting::WorkloadResult r = run_workload(w, RunOptions{});
    ASSERT_TRUE(r.errors.empty()) << w.id << ": " << r.errors.front();
    ASSERT_EQ(r.jobs.size(), 2u) << w.id;
    EXPECT_EQ(ios(r.jobs[0]), 1000u) << w.id;  // the slow job's number_ios
    // The fast jobs' 262144 blocks each (their region, fio's random map) at 600 I/Os per second
    // would take 7 minutes; they end with the slow job, after about 2 s of its think time.
    EXPECT_GT(ios(r.jobs[1]), 0u) << w.id;
    EXPECT_LT(ios(r.jobs[1]), 3u * 262144u) << w.id;
    EXPECT_LT(r.elapsed_s, 120) << w.id;
    EXPECT_FALSE(r.interrupted) << w.id;
  }
}

}  // namespace
}  // namespace storqual::runner
