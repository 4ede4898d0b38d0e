// SPDX-License-Identifier: Apache-2.0
// Early stop through the real job loop and its sampler thread (run_workload), on the fault
// engine's emulated devices over the null engine, on a manual clock: the runs take a fraction of
// a second of real time and their rates are exact, whatever else the machine is doing.
// - A steady device stops after the rule's minimum, at a fraction of the time limit, with the
//   fixed-length run's figure and the same verdicts.
// - A writer whose first half of the region is fast (a write cache: the throughput cliff) does
//   not stop before it has written its region once; with cover=0 it would have stopped on the
//   cache's figure.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "engines/fault_engine.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/measure/early_stop.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace {

// A manual clock held at the sampler's next tick: the job threads' waits jump it forward, but
// not past the gate, which the sampler moves after each sample (RunOptions::monitor_pacing). So
// every sample falls on its tick however the threads are scheduled.
class GatedClock final : public engines::FaultClock {
 public:
  [[nodiscard]] std::chrono::nanoseconds now() noexcept override { return clock_.now(); }
  void sleep_until(std::chrono::nanoseconds t) noexcept override {
    std::unique_lock lock(mutex_);
    while (t.count() > gate_) {
      clock_.sleep_until(std::chrono::nanoseconds(gate_));  // as far as the gate
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
  engines::ManualClock clock_;  // moves only forward, thread safe
  std::mutex mutex_;
  std::condition_variable moved_;
  std::int64_t gate_ = 0;
};

std::shared_ptr<GatedClock> g_clock;
std::uint64_t manual_now() noexcept {
  return static_cast<std::uint64_t>(g_clock->now().count());
}

// 4 KiB I/Os at iodepth 4 on a device that completes each in 1 ms: 4000 IOPS, 16 MB/s; with a
// cliff, writes past `cliff_bytes` take 4 times as long.
reporting::WorkloadResult run(const std::string& rw, double runtime_s, const std::string& rule,
                              std::uint64_t cliff_bytes = 0) {
  WorkloadSpec w;
  w.id = rw;
  w.params.ioengine = "null";
  w.params.target = "null";
  w.params.rw = rw;
  w.params.bs = 4096;
  w.params.iodepth = 4;
  w.params.size = 64ull << 20;
  w.params.runtime_s = runtime_s;
  w.params.ramp_time_s = 1;
  w.early_stop = rule;
  g_clock = std::make_shared<GatedClock>();
  g_clock->start_at(std::chrono::seconds(1));
  RunOptions ro;
  ro.now = manual_now;
  ro.monitor_pacing.max_wait_ns = 20'000;  // real time: poll the manual clock
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

double iops(const reporting::WorkloadResult& r) {
  return (r.read ? r.read->iops : 0) + (r.write ? r.write->iops : 0);
}

std::vector<reporting::ClaimVerdict> verdicts(const reporting::WorkloadResult& r, double pass,
                                              double fail) {
  const Suite suite = Suite::parse(R"(<suite name="s">
    <defaults runtime="30s" size="64m"/>
    <workload id="randread" rw="randread" iodepth="4"/>
  </suite>)",
                                   "s.xml");
  const SpecSheet sheet = SpecSheet::parse(
      "<spec-sheet name=\"x\" suite=\"s\"><match model=\"*\"/><claims tolerance=\"0%\">"
      "<claim workload=\"randread\" metric=\"iops\" value=\"" +
          std::to_string(pass) + "\"/><claim workload=\"randread\" metric=\"read.iops\" value=\"" +
          std::to_string(fail) + "\"/></claims></spec-sheet>",
      "sheet.xml");
  return judge(sheet, suite, {r});
}

TEST(EarlyStopRun, SteadyDeviceStopsAfterTheMinimumWithTheFixedLengthFigure) {
  const auto full = run("randread", 30, "ci:1%@95,min=100000s");  // never stops: the reference
  const auto early = run("randread", 30, "ci:1%@95");
  ASSERT_TRUE(full.early_stop && early.early_stop);
  EXPECT_FALSE(full.early_stop->stopped_early);
  EXPECT_NEAR(full.elapsed_s, 30, 0.01);
  EXPECT_NEAR(iops(full), 4000, 40);

  // The automatic minimum for a 30 s workload is 3 s; the figure is exact, so it stops then.
  const auto& es = *early.early_stop;
  EXPECT_TRUE(es.stopped_early) << es.reason;
  EXPECT_DOUBLE_EQ(es.min_time_s, 3);
  EXPECT_DOUBLE_EQ(es.cover, 0);  // a reader needs no region pass
  EXPECT_GE(early.elapsed_s, 3 - 1e-6);
  EXPECT_LT(early.elapsed_s, 3.6);
  EXPECT_LE(early.elapsed_s + 1, (full.elapsed_s + 1) / 3);  // with the ramp: under a third
  EXPECT_NE(es.reason.find("stopped early after"), std::string::npos) << es.reason;
  EXPECT_LT(es.half_width_pct, 1);
  // The early figure lies inside the fixed-length run's interval (and within 1% of it).
  const auto& ref = *full.early_stop;
  EXPECT_LE(std::fabs(iops(early) - iops(full)), std::max(ref.half_width, 0.01 * iops(full)))
      << iops(early) << " vs " << iops(full) << " +- " << ref.half_width;

  // Claims at half and at twice the figure: the same verdicts from both runs.
  const auto vf = verdicts(full, 2000, 8000), ve = verdicts(early, 2000, 8000);
  ASSERT_EQ(vf.size(), 2u);
  ASSERT_EQ(ve.size(), 2u);
  EXPECT_EQ(vf[0].status, reporting::VerdictStatus::Pass) << vf[0].message;
  EXPECT_EQ(vf[1].status, reporting::VerdictStatus::Fail) << vf[1].message;
  for (std::size_t i = 0; i < vf.size(); ++i)
    EXPECT_EQ(ve[i].status, vf[i].status) << ve[i].message;
}

TEST(EarlyStopRun, ShortWorkloadsGetAShorterMinimumAndFinerSamples) {
  // A 3 s workload (the quick suite's): the minimum is a fifth of it, samples 30 ms.
  const auto early = run("randread", 3, "ci:1%@95");
  ASSERT_TRUE(early.early_stop);
  const auto& es = *early.early_stop;
  EXPECT_TRUE(es.stopped_early) << es.reason;
  EXPECT_NEAR(es.min_time_s, 0.6, 1e-9);
  EXPECT_NEAR(es.sample_s, 0.03, 1e-9);
  EXPECT_LT(early.elapsed_s, 1.0);
  EXPECT_NEAR(iops(early), 4000, 80);
}

TEST(EarlyStopRun, AWriterDoesNotStopBeforeItHasWrittenItsRegionOnce) {
  // The first 48 MiB of writes are fast (a cache), the rest 4 times slower: 16 MiB/s for the
  // 1 s ramp and 2 s of the measurement, then 4 MiB/s. One pass over the 64 MiB region in the
  // measured time takes about 10 s.
  constexpr std::uint64_t kCache = 48ull << 20;
  const auto full = run("randwrite", 30, "ci:1%@95,min=100000s", kCache);
  // Without the cover, the cache's steady 4000 IOPS looks settled after the 1 s minimum.
  const auto fooled = run("randwrite", 30, "ci:1%@95,min=1s,every=50ms,cover=0", kCache);
  const auto early = run("randwrite", 30, "ci:1%@95,min=1s,every=50ms", kCache);
  ASSERT_TRUE(full.early_stop && fooled.early_stop && early.early_stop);
  EXPECT_TRUE(fooled.early_stop->stopped_early) << fooled.early_stop->reason;
  EXPECT_GT(iops(fooled), 1.5 * iops(full)) << "the cache's figure, not the device's";

  const auto& es = *early.early_stop;
  EXPECT_DOUBLE_EQ(es.cover, 1);
  // Past the region pass, wherever it ended: at a stop after it, or at the time limit (the
  // cliff inside the window keeps the SNIA block criteria from holding for long).
  EXPECT_GE(es.region_passes, 1) << es.reason;
  EXPECT_GE(early.elapsed_s, 9) << es.reason;
  if (!es.stopped_early) {
    EXPECT_NEAR(early.elapsed_s, 30, 0.01);
  }
  // Its figure is the fixed-length run's, within that run's interval.
  const auto& ref = *full.early_stop;
  EXPECT_LE(std::fabs(iops(early) - iops(full)), std::max(ref.half_width, 0.02 * iops(full)))
      << iops(early) << " vs " << iops(full) << " +- " << ref.half_width << "; " << es.reason;
}

}  // namespace
}  // namespace storqual::runner
