// SPDX-License-Identifier: Apache-2.0
// The job runner on the null engine (deterministic, no device): counts, regions, timelines,
// numjobs, size-based coverage, stop requests, the per-I/O log.
#include "runner/measure/job_runner.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "runner/base/units.hpp"
#include "runner/measure/fault_spec.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

WorkloadSpec null_spec(std::string rw, unsigned iodepth = 8) {
  WorkloadSpec w;
  w.id = "t";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = std::move(rw);
  w.params.bs = 4096;
  w.params.iodepth = iodepth;
  w.params.size = 4096 * 1000;
  return w;
}

TEST(JobRunner, SizeBasedSequentialCoversTheRegionOnce) {
  auto w = null_spec("read");
  auto r = run_workload(w);
  ASSERT_TRUE(r.read.has_value());
  EXPECT_FALSE(r.write.has_value());
  EXPECT_EQ(r.read->ios, 1000u);
  EXPECT_EQ(r.read->bytes, 4096u * 1000);
  EXPECT_EQ(r.read->clat.samples, 1000u);
  EXPECT_EQ(r.read->slat.samples, 1000u);
  EXPECT_TRUE(r.errors.empty());
}

TEST(JobRunner, SizeBasedRandomVisitsEveryBlockOnceAndStaysInTheRegion) {
  auto w = null_spec("randwrite");
  w.params.offset = 4096 * 10;
  storqual::testing::ScratchDir dir;
  RunOptions o;
  o.lat_log_path = (dir / "lat.csv").string();
  auto r = run_workload(w, o);
  ASSERT_TRUE(r.write.has_value());
  EXPECT_EQ(r.write->ios, 1000u);
  std::ifstream log(o.lat_log_path);
  std::set<std::uint64_t> offsets;
  std::string line;
  while (std::getline(log, line)) {
    std::istringstream in(line);
    std::uint64_t t, clat, dirn, size, offset;
    char c;
    in >> t >> c >> clat >> c >> dirn >> c >> size >> c >> offset;
    ASSERT_TRUE(in) << line;
    EXPECT_EQ(dirn, 1u);
    EXPECT_EQ(size, 4096u);
    EXPECT_EQ(offset % 4096, 0u);
    EXPECT_GE(offset, w.params.offset);
    EXPECT_LT(offset, w.params.offset + w.params.size);
    offsets.insert(offset);
  }
  EXPECT_EQ(offsets.size(), 1000u);
}

TEST(JobRunner, MixedWorkloadHonoursRwmixread) {
  auto w = null_spec("randrw");
  w.params.size = 4096ull * 100000;
  w.params.rwmixread = 70;
  auto r = run_workload(w);
  ASSERT_TRUE(r.read && r.write);
  double share = static_cast<double>(r.read->ios) / static_cast<double>(r.read->ios + r.write->ios);
  EXPECT_NEAR(share, 0.70, 0.01);
}

TEST(JobRunner, NumjobsEachDoTheirShare) {
  auto w = null_spec("randread");
  w.params.numjobs = 4;
  auto r = run_workload(w);
  EXPECT_EQ(r.read->ios, 4000u);  // as fio: each job covers size
}

TEST(JobRunner, TimeBasedRunHasOneTimelinePointPerInterval) {
  auto w = null_spec("randread", 16);
  w.params.runtime_s = 1.0;
  w.interval_s = 0.1;
  auto r = run_workload(w);
  EXPECT_EQ(r.timeline.size(), 10u);
  EXPECT_DOUBLE_EQ(r.elapsed_s, 1.0);
  double sum = 0;
  for (const auto& p : r.timeline) sum += p.read_iops * 0.1;
  EXPECT_NEAR(sum, static_cast<double>(r.read->ios), 0.01 * static_cast<double>(r.read->ios));
  EXPECT_GT(r.read->iops, 1000);
}

// A runtime a hair over a whole number of intervals (10.00002 s at 1 s) must not add a sliver of
// an interval whose few I/Os over 20 us read as a huge or tiny rate and skew min/max/avg.
TEST(JobRunner, ASliverOfALastIntervalIsNotATimelineSample) {
  auto w = null_spec("randread", 16);
  w.params.runtime_s = 0.50002;
  w.interval_s = 0.1;
  auto r = run_workload(w);
  ASSERT_EQ(r.timeline.size(), 5u);
  for (std::size_t i = 0; i < r.timeline.size(); ++i)
    EXPECT_NEAR(r.timeline[i].t_s, 0.1 * static_cast<double>(i + 1), 1e-9);
  // A partial interval of more than half is a sample, over its own span.
  w.params.runtime_s = 0.56;
  r = run_workload(w);
  ASSERT_EQ(r.timeline.size(), 6u);
  EXPECT_NEAR(r.timeline.back().t_s, 0.56, 1e-9);
}

// A time-based run has a point for every interval, also those in which nothing completed: each
// I/O takes 300 ms, so of 0.5 s at 0.1 s only the fourth interval has one (the second I/O ends
// after the time limit); the fifth is a zero rate, not missing (a stall at the end of a run).
TEST(JobRunner, AnIntervalWithNoCompletionIsAZeroPoint) {
  auto w = null_spec("randread", 1);
  w.params.runtime_s = 0.5;
  w.interval_s = 0.1;
  RunOptions o;
  o.wrap_engine = fault_injector(parse_fault_plan("latency:base=300ms"));
  auto r = run_workload(w, o);
  ASSERT_EQ(r.timeline.size(), 5u);
  EXPECT_DOUBLE_EQ(r.timeline.back().read_iops, 0);
  EXPECT_NEAR(r.timeline.back().t_s, 0.5, 1e-9);
  EXPECT_LE(r.read->ios, 1u);
}

TEST(JobRunner, RampTimeIsRunButNotCounted) {
  auto w = null_spec("randread", 4);
  w.params.runtime_s = 0.3;
  w.params.ramp_time_s = 0.3;
  LiveCounters live;
  RunOptions o;
  o.live = &live;
  auto r = run_workload(w, o);
  EXPECT_DOUBLE_EQ(r.elapsed_s, 0.3);
  EXPECT_EQ(r.timeline.size(), 1u);
  EXPECT_EQ(live.ios.load(), r.read->ios);
}

TEST(JobRunner, StopRequestEndsTheRunAsInterrupted) {
  auto w = null_spec("randread", 4);
  w.params.runtime_s = 60;
  std::atomic<bool> stop{false};
  RunOptions o;
  o.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  auto start = std::chrono::steady_clock::now();
  auto r = run_workload(w, o);
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(r.interrupted);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors.back(), "interrupted");
}

TEST(JobRunner, BadWorkloadsAreRefusedBeforeAnyIo) {
  auto w = null_spec("randread");
  w.params.size = 100;  // smaller than bs
  EXPECT_THROW((void)run_workload(w), UnitError);
  auto v = null_spec("sideways");
  EXPECT_THROW((void)run_workload(v), UnitError);
}

// One buffer written 256 times (iodepth 1, sequential) to a real file: a device that
// deduplicates 512-byte sectors must find no two alike, so every sector of every write carries
// a fresh stamp (a stamp per 4 KiB left 7 of 8 sectors the same write after write).
TEST(JobRunner, NoTwoWrittenSectorsAreAlike) {
  storqual::testing::ScratchDir dir;
  const auto file = dir / "dedupe.bin";
  storqual::testing::write_random_file(file, 1 << 20);
  WorkloadSpec w;
  w.id = "dedupe";
  w.params.ioengine = "psync";
  w.params.target = file.string();
  w.params.direct = false;  // any filesystem the scratch directory is on
  w.params.rw = "write";
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.size = 1 << 20;
  auto r = run_workload(w);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_TRUE(r.write.has_value());
  ASSERT_EQ(r.write->ios, 256u);
  std::ifstream in(file, std::ios::binary);
  std::set<std::string> sectors;
  std::string sector(512, '\0');
  while (in.read(sector.data(), 512)) sectors.insert(sector);
  EXPECT_EQ(sectors.size(), 2048u);
}

// The job thread and a spinning thread pinned to one CPU: the scheduler gives each about half,
// and the result says the job waited for a CPU (cpu.wait_pct), which makes it host-limited.
TEST(JobRunner, AJobSharingItsCpuWithAnotherThreadReportsTheWait) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &before)) ++cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  struct Pinned {  // this thread and what it starts on one CPU, undone even when a check fails
    std::atomic<bool> stop{false};
    std::thread hog;
    cpu_set_t restore;
    ~Pinned() {
      stop = true;
      if (hog.joinable()) hog.join();
      pthread_setaffinity_np(pthread_self(), sizeof restore, &restore);
    }
  } pinned;
  pinned.restore = before;
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
  pinned.hog = std::thread([&] {
    while (!pinned.stop.load(std::memory_order_relaxed)) {
    }
  });
  auto w = null_spec("randread", 1);
  w.params.size = 0;
  w.params.runtime_s = 0.6;
  auto r = run_workload(w);
  if (r.cpu.wait_pct < 0) GTEST_SKIP() << "this kernel keeps no schedstat";
  // About half the time with the spinner alone; more when other processes share that CPU too.
  EXPECT_GT(r.cpu.wait_pct, 25) << "a thread on one CPU with a spinner waits about half the time";
  EXPECT_LE(r.cpu.wait_pct, 100);
  EXPECT_EQ(r.cpu.poll, "") << "the null engine does not poll";
}

}  // namespace
}  // namespace storqual::runner
