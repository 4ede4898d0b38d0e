// SPDX-License-Identifier: Apache-2.0
// A run while CPU-bound processes compete is marked busy; the same run without them is not.
// The competitors are children of the test (one busy loop per online CPU), killed by their
// pids in the fixture's teardown, also when an assertion fails. The machine may be shared: the
// idle case is only asserted when the host was not already busy before the test (sampled the
// same way just before); otherwise it skips, saying what it saw. A workload with many threads of
// its own (4 jobs at iodepth 64 on zram: job threads and io-wq workers) is not a busy host either;
// its threads' runnable states once read as 1.7 "other" runnable tasks on an idle host.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "runner/measure/host_load.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

WorkloadSpec null_workload() {
  WorkloadSpec w;
  w.id = "busy-probe";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = "randread";
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.size = 1ull << 30;
  w.params.runtime_s = 1.5;
  w.interval_s = 0.1;
  return w;
}

// The host over one second, without any workload of ours.
reporting::HostBusyReport host_now() {
  HostLoadTracker t;
  for (int i = 0; i < 10; ++i) {
    t.sample(static_cast<std::uint64_t>(i) * 100'000'000);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return t.report();
}

class BusyHostTest : public ::testing::Test {
 protected:
  void start_competitors() {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    competitors_.start(static_cast<int>(std::max(1L, cpus)));
  }
  void TearDown() override { competitors_.stop(); }
  testing::BusyLoops competitors_;
};

TEST_F(BusyHostTest, CompetingBusyLoopsMarkTheRunBusy) {
  start_competitors();
  const auto r = run_workload(null_workload());
  ASSERT_TRUE(r.host_busy);
  EXPECT_TRUE(r.host_busy->busy) << "other processes' user time " << r.host_busy->other_user_cpus
                                 << " CPUs of " << r.host_busy->cpus;
  EXPECT_GE(r.host_busy->other_user_cpus, kBusyOtherUserCpuPerCpu * r.host_busy->cpus);
  EXPECT_GE(r.host_busy->samples, 10u);
  ASSERT_FALSE(r.host_busy->reasons.empty());
  EXPECT_NE(r.host_busy->reasons[0].find("other processes used"), std::string::npos);
}

TEST_F(BusyHostTest, SameRunWithoutThemIsNotBusy) {
  const auto before = host_now();
  if (before.busy)
    GTEST_SKIP() << "the host was already busy before the test: " << host_busy_reason(before);
  const auto r = run_workload(null_workload());
  ASSERT_TRUE(r.host_busy);
  const auto after = host_now();
  if (r.host_busy->busy && after.busy)
    GTEST_SKIP() << "another process made the host busy during the test: "
                 << host_busy_reason(after);
  EXPECT_FALSE(r.host_busy->busy) << host_busy_reason(*r.host_busy);
  EXPECT_LT(r.host_busy->other_user_cpus, kBusyOtherUserCpuPerCpu * r.host_busy->cpus);
}

TEST_F(BusyHostTest, ManyThreadsOfOurOwnOnZramAreNotBusy) {
  STORQUAL_REQUIRE_ROOT();
  const auto before = host_now();
  if (before.busy)
    GTEST_SKIP() << "the host was already busy before the test: " << host_busy_reason(before);
  std::optional<storqual::testing::ZramDevice> zram;
  try {
    zram.emplace(256ull << 20);
  } catch (const std::exception& e) {
    GTEST_FAIL() << "cannot run: " << e.what();
  }
  WorkloadSpec w;
  w.id = "own-threads";
  w.params.ioengine = "io_uring";
  w.params.target = zram->path();
  w.params.rw = "randrw";
  w.params.bs = 4096;
  w.params.iodepth = 64;
  w.params.numjobs = 4;
  w.params.runtime_s = 1.5;
  w.interval_s = 0.1;
  const auto r = run_workload(w);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_TRUE(r.host_busy);
  const auto after = host_now();
  if (r.host_busy->busy && after.busy)
    GTEST_SKIP() << "another process made the host busy during the test: "
                 << host_busy_reason(after);
  EXPECT_FALSE(r.host_busy->busy) << host_busy_reason(*r.host_busy) << "; other runnable "
                                  << r.host_busy->other_runnable;
}

}  // namespace
}  // namespace storqual::runner
