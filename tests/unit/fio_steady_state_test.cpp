// SPDX-License-Identifier: Apache-2.0
// fio's steady state (runner/measure/fio_steady_state.hpp): the criteria as fio 3.33's
// steadystate.c computes them over a window of one-second samples, its options and their fio
// spelling, and through the real job loop and sampler thread (run_workload) on the fault engine's
// emulated device over the null engine, on a manual clock whose ticks fall on whole seconds: a
// steady device ends the workload at ss_ramp + ss_dur, one whose rate falls mid-run does not
// attain it and runs to its runtime.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "engines/fault_engine.hpp"
#include "runner/base/units.hpp"
#include "runner/measure/fio_steady_state.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {
namespace {

FioSteadyState criterion(const std::string& ss, unsigned dur) {
  FioSteadyState s;
  apply_steady_state_criterion(s, ss);
  s.dur_s = dur;
  return s;
}

TEST(FioSteadyState, DeviationIsTheLargestDistanceFromTheMeanAndTheLimitIsStrict) {
  // mean 100, largest deviation 10: 10% of the mean, which a limit of 10% does not take.
  for (const auto& [limit, attained] : {std::pair{"iops:10%", false}, {"iops:10.5%", true}}) {
    FioSteadyStateWindow w(criterion(limit, 5));
    bool got = false;
    for (std::uint64_t v : {100, 110, 90, 100, 100}) got = w.add(v, v * 4096, 1);
    EXPECT_EQ(got, attained) << limit;
    const auto r = w.report();
    EXPECT_DOUBLE_EQ(r.max_deviation, 10);
    EXPECT_DOUBLE_EQ(r.criterion, 10);
    EXPECT_EQ(r.iops_mean, 100u);
    EXPECT_EQ(r.bw_mean, 409600u);
  }
  // Absolute: the deviation in I/Os per second.
  FioSteadyStateWindow abs(criterion("iops:11", 5));
  bool got = false;
  for (std::uint64_t v : {100, 110, 90, 100, 100}) got = abs.add(v, 0, 1);
  EXPECT_TRUE(got);
}

TEST(FioSteadyState, SlopeIsTheLeastSquaresLineOverTheWindow) {
  // 100, 102 .. 108: slope 2 per sample over a mean of 104, 1.923%; falling is the same size.
  for (const bool falling : {false, true}) {
    FioSteadyStateWindow two(criterion("bw_slope:2%", 5)), one(criterion("bw_slope:1.9%", 5));
    bool a = false, b = false;
    for (int i = 0; i < 5; ++i) {
      const std::uint64_t bw = 100 + 2 * static_cast<std::uint64_t>(falling ? 4 - i : i);
      a = two.add(0, bw, i + 1.0);
      b = one.add(0, bw, i + 1.0);
    }
    EXPECT_TRUE(a);
    EXPECT_FALSE(b);
    EXPECT_NEAR(std::fabs(two.report().criterion), 200.0 / 104, 1e-9);
    EXPECT_NEAR(two.report().slope, falling ? -2 : 2, 1e-9);
    EXPECT_DOUBLE_EQ(two.report().attained_at_s, 5);
  }
}

TEST(FioSteadyState, TheWindowMovesOnAndNoSamplesIsNeverSteady) {
  FioSteadyStateWindow w(criterion("iops:5%", 3));
  EXPECT_FALSE(w.add(0, 0, 1));
  EXPECT_FALSE(w.add(0, 0, 2));
  EXPECT_FALSE(w.add(0, 0, 3)) << "a mean of 0 is no steady state (fio divides by it)";
  EXPECT_FALSE(w.add(1000, 0, 4));
  EXPECT_FALSE(w.add(1000, 0, 5));
  EXPECT_TRUE(w.add(1000, 0, 6));  // the zeros have left the window
  const auto r = w.report();
  EXPECT_EQ(r.samples, 6u);
  EXPECT_EQ(r.iops, (std::vector<std::uint64_t>{1000, 1000, 1000}));
  EXPECT_DOUBLE_EQ(r.attained_at_s, 6);
}

TEST(FioSteadyState, OptionsReadAsFioReadsThemAndWriteBackTheSame) {
  WorkloadSpec w;
  set_workload_option(w, "ss", "bw_slope:1%");
  set_workload_option(w, "ss_dur", "1500ms");  // fio keeps whole seconds
  set_workload_option(w, "ss_ramp", "5s");
  EXPECT_EQ(w.steadystate.dur_s, 1u);
  EXPECT_EQ(steady_state_options(w.steadystate),
            (std::vector<std::string>{"ss=bw_slope:1%", "ss_dur=1s", "ss_ramp=5s"}));
  set_workload_option(w, "ss", "bw:4m");
  EXPECT_EQ(w.steadystate.criterion_text(), "bw:4194304");
  set_workload_option(w, "ss", "iops:2.5");
  EXPECT_EQ(w.steadystate.criterion_text(), "iops:2.5");
  WorkloadSpec dur_only;  // fio's default criterion: iops_slope:0.01%
  set_workload_option(dur_only, "ss_dur", "10");
  EXPECT_EQ(steady_state_options(dur_only.steadystate),
            (std::vector<std::string>{"ss=iops_slope:0.01%", "ss_dur=10s"}));
  EXPECT_FALSE(WorkloadSpec{}.steadystate.active());  // fio's default ss_dur=0: off
  EXPECT_TRUE(steady_state_options(WorkloadSpec{}.steadystate).empty());
  for (const char* bad : {"iops", "iops:", "lat:10%", "iops:x%", "bw:-1"})
    EXPECT_THROW(set_workload_option(w, "ss", bad), UnitError) << bad;
  WorkloadSpec both;
  both.params.runtime_s = 10;
  set_workload_option(both, "ss_dur", "5");
  set_workload_option(both, "early_stop", "ci:1%@95");
  EXPECT_THROW(validate(both), UnitError);
  // The fio command line carries it.
  WorkloadSpec cmd;
  set_workload_option(cmd, "ss", "iops:10%");
  set_workload_option(cmd, "ss_dur", "30s");
  EXPECT_NE(fio_command(cmd).find("--ss=iops:10% --ss_dur=30s"), std::string::npos)
      << fio_command(cmd);
}

// A manual clock held at the sampler's next tick (as early_stop_run_test.cpp's): every sample
// falls on its tick, so each second's rate is exact.
class GatedClock final : public engines::FaultClock {
 public:
  [[nodiscard]] std::chrono::nanoseconds now() noexcept override { return clock_.now(); }
  void sleep_until(std::chrono::nanoseconds t) noexcept override {
    std::unique_lock lock(mutex_);
    while (t.count() > gate_) {
      clock_.sleep_until(std::chrono::nanoseconds(gate_));
      moved_.wait(lock);
    }
    clock_.sleep_until(t);
  }
  void open_to(std::uint64_t t) {
    {
      std::lock_guard lock(mutex_);
      gate_ = std::max(gate_, static_cast<std::int64_t>(t));
    }
    moved_.notify_all();
  }
  void start_at(std::chrono::nanoseconds t) { clock_.advance(t - clock_.now()); }

 private:
  engines::ManualClock clock_;
  std::mutex mutex_;
  std::condition_variable moved_;
  std::int64_t gate_ = 0;
};

std::shared_ptr<GatedClock> g_clock;
std::uint64_t manual_now() noexcept {
  return static_cast<std::uint64_t>(g_clock->now().count());
}

// 4 KiB writes at iodepth 4 on a device that completes each in 1 ms: 4000 IOPS; with a cliff,
// writes past `cliff_bytes` take 4 times as long (1000 IOPS).
reporting::WorkloadResult run(double runtime_s, const std::string& ss, const std::string& dur,
                              const std::string& ramp, std::uint64_t cliff_bytes = 0) {
  WorkloadSpec w;
  w.id = "ss";
  w.params.ioengine = "null";
  w.params.target = "null";
  w.params.rw = "write";
  w.params.bs = 4096;
  w.params.iodepth = 4;
  w.params.size = 64ull << 20;
  w.params.runtime_s = runtime_s;
  w.params.ramp_time_s = 1;
  set_workload_option(w, "ss", ss);
  set_workload_option(w, "ss_dur", dur);
  set_workload_option(w, "ss_ramp", ramp);
  g_clock = std::make_shared<GatedClock>();
  g_clock->start_at(std::chrono::seconds(1));
  RunOptions ro;
  ro.now = manual_now;
  ro.monitor_pacing.max_wait_ns = 20'000;
  ro.monitor_pacing.next_tick = [](std::uint64_t next) { g_clock->open_to(next); };
  ro.wrap_engine =
      [cliff_bytes](std::unique_ptr<engines::Engine> inner) -> std::unique_ptr<engines::Engine> {
    engines::FaultPlan plan;
    plan.latency = engines::FaultPlan::Latency{.base = std::chrono::milliseconds(1)};
    if (cliff_bytes)
      plan.throughput_cliff =
          engines::FaultPlan::ThroughputCliff{.after_bytes = cliff_bytes, .slowdown = 4.0};
    return std::make_unique<engines::FaultEngine>(std::move(inner), plan, g_clock);
  };
  auto r = run_workload(w, ro);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  return r;
}

TEST(FioSteadyStateRun, ASteadyDeviceEndsAtTheRampAndOneWindow) {
  // ss_ramp 2 s: the samples of seconds 3 .. 7 make the first full window, all 4000 IOPS.
  const auto r = run(60, "iops:10%", "5s", "2s");
  ASSERT_TRUE(r.steadystate);
  const auto& ss = *r.steadystate;
  EXPECT_TRUE(ss.attained);
  EXPECT_DOUBLE_EQ(ss.attained_at_s, 7);
  EXPECT_EQ(ss.samples, 5u);
  EXPECT_EQ(ss.ss, "iops:10.000000%");
  EXPECT_NEAR(r.elapsed_s, 7, 0.01) << "ended at the criterion, not at its 60 s runtime";
  ASSERT_EQ(ss.iops.size(), 5u);
  for (std::uint64_t v : ss.iops) EXPECT_NEAR(static_cast<double>(v), 4000, 40);
  EXPECT_NEAR(static_cast<double>(ss.bw_mean), 4000 * 4096, 4000 * 4096 * 0.01);
  // The slope criterion on the same device: no ramp, the window of 3 s.
  const auto slope = run(60, "iops_slope:1%", "3", "0");
  ASSERT_TRUE(slope.steadystate);
  EXPECT_TRUE(slope.steadystate->attained);
  EXPECT_DOUBLE_EQ(slope.steadystate->attained_at_s, 3);
  EXPECT_NEAR(slope.elapsed_s, 3, 0.01);
}

TEST(FioSteadyStateRun, ADeviceThatSlowsInsideEveryWindowRunsToItsRuntime) {
  // 16 MiB of ramp and 6 s at 16 MiB/s, then 1000 IOPS: every 10 s window up to the 12 s runtime
  // holds both rates, a deviation far over 10%.
  const auto r = run(12, "iops:10%", "10s", "0", 112ull << 20);
  ASSERT_TRUE(r.steadystate);
  const auto& ss = *r.steadystate;
  EXPECT_FALSE(ss.attained);
  EXPECT_DOUBLE_EQ(ss.attained_at_s, -1);
  EXPECT_GT(ss.criterion, 10);
  EXPECT_NEAR(r.elapsed_s, 12, 0.01);
  EXPECT_GE(ss.samples, 11u);
  ASSERT_EQ(ss.iops.size(), 10u);
  EXPECT_NEAR(static_cast<double>(ss.iops.front()), 4000, 40);
  EXPECT_NEAR(static_cast<double>(ss.iops.back()), 1000, 20);
}

}  // namespace
}  // namespace storqual::runner
