// SPDX-License-Identifier: Apache-2.0
// Pacing on the null engine (runner/measure/workload_pacing.cpp, docs/formats.md): rate_process=
// poisson issues at fio's exponential due times, a minimum rate that is not met fails the run
// naming it, think time and startdelay hold the I/O back. Mechanics only: no assertion on how
// close to its due time an I/O ran (this host is shared), only that none ran before it.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "runner/base/units.hpp"
#include "runner/measure/fio_random.hpp"
#include "runner/measure/job_runner.hpp"
#include "tests/support/test_devices.hpp"

namespace storqual::runner {
namespace {

WorkloadSpec paced(double rate_iops, double runtime_s) {
  WorkloadSpec w;
  w.id = "paced";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = "read";
  w.params.bs = 4096;
  w.params.iodepth = 1;
  w.params.size = 64ull << 20;
  w.params.runtime_s = runtime_s;
  w.rate_iops = rate_iops;
  return w;
}

// Completion times of the per-I/O log, in whole milliseconds from the start.
std::vector<std::uint64_t> completion_ms(const WorkloadSpec& w, reporting::WorkloadResult& r) {
  storqual::testing::ScratchDir dir;
  RunOptions o;
  o.lat_log_path = (dir / "lat.csv").string();
  r = run_workload(w, o);
  std::ifstream log(o.lat_log_path);
  std::vector<std::uint64_t> out;
  for (std::string line; std::getline(log, line);) {
    std::istringstream in(line);
    std::uint64_t t = 0;
    in >> t;
    EXPECT_TRUE(in) << line;
    out.push_back(t);
  }
  return out;
}

// fio's due times of a poisson rate for the first job's reads (io_u.c usec_for_io, seeded
// FIO_RAND_POISSON_OFF = 15), in microseconds from the start: the first I/O at 0.
std::vector<std::uint64_t> fio_poisson_due_us(std::uint64_t iops, std::size_t n) {
  FioRandom rng(fio_seed(static_cast<FioSeed>(15), kFioDefaultRandseed, 1), false);
  std::vector<std::uint64_t> due{0};
  std::uint64_t us = 0;
  while (due.size() < n) {
    const float u = static_cast<float>(rng.next_0_1());
    us += static_cast<std::uint64_t>(static_cast<float>(1000000 / iops) * -std::log(u));
    due.push_back(us);
  }
  return due;
}

TEST(PacingRun, PoissonIssuesNoIoBeforeFiosDueTime) {
  WorkloadSpec w = paced(50, 1.5);
  set_workload_option(w, "rate_process", "poisson");
  reporting::WorkloadResult r;
  const auto done = completion_ms(w, r);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_GE(done.size(), 20u);
  const auto due = fio_poisson_due_us(50, done.size());
  // Linear pacing (I/O k at 20k ms) would run some I/O before its poisson due time.
  for (std::size_t k = 0; k < done.size(); ++k)
    EXPECT_GE(done[k] * 1000 + 999, due[k]) << "I/O " << k << " of " << done.size();
  // 1.5 s at a mean gap of 20 ms is about 75 I/Os (the null engine unpaced does millions).
  EXPECT_LT(done.size(), 200u);
}

TEST(PacingRun, RateBelowItsMinimumFailsTheRunNamingIt) {
  WorkloadSpec w = paced(20, 4);
  set_workload_option(w, "rate_iops_min", "100");
  const reporting::WorkloadResult r = run_workload(w, RunOptions{});
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors.front().find("rate_iops_min=100 not met"), std::string::npos)
      << r.errors.front();
}

TEST(PacingRun, RateAboveItsMinimumRunsToTheEnd) {
  WorkloadSpec w = paced(2000, 3);
  set_workload_option(w, "rate_iops_min", "100");
  const reporting::WorkloadResult r = run_workload(w, RunOptions{});
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
}

// thinktime=50ms after every 2 I/Os: in 1 s at most 2 x (1 + 1000 / 50) = 42 I/Os (unpaced, the
// null engine does millions).
TEST(PacingRun, ThinkTimeHoldsTheNextBlocksBack) {
  WorkloadSpec w = paced(0, 1);
  set_workload_option(w, "thinktime", "50ms");
  set_workload_option(w, "thinktime_blocks", "2");
  set_workload_option(w, "thinktime_spin", "1ms");
  reporting::WorkloadResult r;
  const auto done = completion_ms(w, r);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_GE(done.size(), 4u);
  EXPECT_LE(done.size(), 42u);
  // Pairs: I/O 2k+2 comes at least 50 ms after I/O 2k+1.
  for (std::size_t k = 2; k < done.size(); k += 2) EXPECT_GE(done[k] + 1, done[k - 1] + 50) << k;
}

TEST(PacingRun, StartDelayHoldsTheFirstIoBack) {
  WorkloadSpec w = paced(1000, 1);
  set_workload_option(w, "startdelay", "300ms");
  reporting::WorkloadResult r;
  const auto done = completion_ms(w, r);
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_FALSE(done.empty());
  EXPECT_GE(done.front(), 300u);
}

TEST(PacingOptions, ReadBackAndRefuseWhatFioWouldNot) {
  WorkloadSpec w = paced(100, 1);
  set_workload_option(w, "rate_process", "poisson");
  set_workload_option(w, "ratemin", "1m");
  set_workload_option(w, "rate_cycle", "500");
  set_workload_option(w, "startdelay", "1s-3s");
  set_workload_option(w, "thinktime", "2ms");
  const std::vector<std::string> want = {"rate_process=poisson", "ratemin=1048576",
                                         "rate_cycle=500", "startdelay=1s-3s", "thinktime=2ms"};
  EXPECT_EQ(pacing_options(w), want);
  EXPECT_NO_THROW(validate(w));
  EXPECT_THROW(set_workload_option(w, "rate_process", "exp"), UnitError);
  EXPECT_THROW(set_workload_option(w, "startdelay", "3s-1s"), UnitError);
  set_workload_option(w, "thinktime_spin", "5ms");
  EXPECT_THROW(validate(w), UnitError);  // spins longer than it thinks
  WorkloadSpec unrated = paced(0, 1);
  set_workload_option(unrated, "rate_process", "poisson");
  EXPECT_THROW(validate(unrated), UnitError);
}

}  // namespace
}  // namespace storqual::runner
