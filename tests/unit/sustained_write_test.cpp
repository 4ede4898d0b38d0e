// SPDX-License-Identifier: Apache-2.0
// Sustained writes: the cache-size analysis on synthetic timelines, the passes a volume asks
// for, the suite element, the sustained.bw claim, and the cache found within 5% on the fault
// engine's throughput cliff after N bytes.
#include "runner/methods/sustained_write/sustained_write.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "engines/fault_engine.hpp"
#include "model/metric.hpp"
#include "runner/base/xml_file.hpp"
#include "runner/judge/verdict.hpp"
#include "runner/measure/job_runner.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {
namespace {

std::vector<reporting::TimelinePoint> timeline(const std::vector<double>& bw, double dt) {
  std::vector<reporting::TimelinePoint> t;
  for (std::size_t i = 0; i < bw.size(); ++i)
    t.push_back({.t_s = dt * static_cast<double>(i + 1), .write_bw = bw[i]});
  return t;
}

TEST(SustainedWriteAnalysis, CliffInsideAnInterval) {
  // 1000 B/s for 5.25 s then 200 B/s: interval 6 (5..6 s) carries 250 + 150 = 400 B.
  auto t = timeline({1000, 1000, 1000, 1000, 1000, 400, 200, 200, 200}, 1.0);
  auto r = analyze_sustained_write(t, 0.5, 3);
  EXPECT_TRUE(r.dropped);
  EXPECT_DOUBLE_EQ(r.initial_bw, 1000);
  EXPECT_DOUBLE_EQ(r.post_cache_bw, 200);
  EXPECT_EQ(r.cache_bytes, 5250u);
  EXPECT_NEAR(r.cache_time_s, 5.25, 1e-9);
  EXPECT_EQ(r.bytes_written, 5000u + 400 + 600);
}

TEST(SustainedWriteAnalysis, NoDrop) {
  auto t = timeline({1000, 900, 800, 700, 600}, 1.0);  // falls, but never below half of 900
  auto r = analyze_sustained_write(t, 0.5, 3);
  EXPECT_FALSE(r.dropped);
  EXPECT_EQ(r.cache_bytes, r.bytes_written);
  EXPECT_DOUBLE_EQ(r.post_cache_bw, 800);  // the mean over the whole run
}

TEST(SustainedWriteAnalysis, DropInTheLastInterval) {
  auto t = timeline({1000, 1000, 1000, 100}, 0.5);
  auto r = analyze_sustained_write(t, 0.5, 3);
  EXPECT_TRUE(r.dropped);
  EXPECT_DOUBLE_EQ(r.post_cache_bw, 100);
  EXPECT_EQ(r.cache_bytes, 1500u);
}

TEST(SustainedWriteRun, VolumeMakesPassesOverTheRange) {
  WorkloadSpec w;
  w.id = "sw";
  w.params.bs = 128 * 1024;
  w.params.size = 10 * w.params.bs;
  SustainedWrite how;
  how.volume_factor = 2.5;
  std::vector<std::uint64_t> sizes;
  auto r = run_sustained_write(w, how, [&](const WorkloadSpec& pass) {
    EXPECT_EQ(pass.params.rw, "write");
    EXPECT_DOUBLE_EQ(pass.params.runtime_s, 0);
    sizes.push_back(pass.params.size);
    reporting::WorkloadResult res;
    res.id = pass.id;
    res.elapsed_s = 1;
    reporting::DirectionResult d;
    d.bytes = pass.params.size;
    d.ios = pass.params.size / pass.params.bs;
    res.write = d;
    res.timeline = timeline({static_cast<double>(pass.params.size)}, 1.0);
    return res;
  });
  ASSERT_EQ(sizes.size(), 3u);
  EXPECT_EQ(sizes[2], 5 * w.params.bs);
  EXPECT_EQ(r.kind(), "sustained-write");
  EXPECT_EQ(r.write->bytes, 25 * w.params.bs);
  EXPECT_DOUBLE_EQ(r.elapsed_s, 3);
  ASSERT_EQ(r.timeline.size(), 3u);
  EXPECT_DOUBLE_EQ(r.timeline[2].t_s, 3);
  ASSERT_TRUE(sustained_write_report(r));
  EXPECT_EQ(r.params.size, w.params.size);
}

TEST(SustainedWriteSuite, ElementAndClaim) {
  Suite s = Suite::parse(R"(<suite name="t">
  <defaults runtime="60s" size="1g"/>
  <sustained-write id="fill" bs="128k" iodepth="32" volume="2x" drop="40%"/>
  <sustained-write id="timed" bs="1m" runtime="30m"/>
</suite>)",
                         "t.xml");
  ASSERT_TRUE(s.workloads[0].method_as<SustainedWriteMethod>());
  EXPECT_DOUBLE_EQ(s.workloads[0].method_as<SustainedWriteMethod>()->how().volume_factor, 2);
  EXPECT_DOUBLE_EQ(s.workloads[0].method_as<SustainedWriteMethod>()->how().drop_fraction, 0.4);
  EXPECT_EQ(s.workloads[0].spec.params.rw, "write");
  EXPECT_DOUBLE_EQ(s.workloads[0].spec.params.runtime_s, 0);
  EXPECT_DOUBLE_EQ(s.workloads[1].method_as<SustainedWriteMethod>()->how().volume_factor, 0);
  EXPECT_DOUBLE_EQ(s.workloads[1].spec.params.runtime_s, 1800);
  try {
    (void)Suite::parse(R"(<suite name="t"><sustained-write id="a" rw="randwrite"/></suite>)",
                       "b.xml");
    FAIL() << "random sustained write accepted";
  } catch (const FileError& e) {
    EXPECT_STREQ(e.what(),
                 "b.xml:1:45: a sustained write is sequential writes (rw=write), got 'randwrite'");
  }

  SpecSheet sheet = SpecSheet::parse(R"(<spec-sheet name="x" suite="t"><match model="*"/><claims>
    <claim workload="fill" metric="sustained.bw" value="400MB/s"/>
    <claim workload="timed" metric="sustained.bw" value="400MB/s"/>
  </claims></spec-sheet>)",
                                     "x.xml");
  reporting::WorkloadResult fill;
  fill.id = "fill";
  fill.write = reporting::DirectionResult{};
  auto report = std::make_shared<SustainedWriteMethodReport>();
  report->sustained = SustainedWriteReport{};
  report->sustained->dropped = true;
  report->sustained->post_cache_bw = 380e6;
  fill.method = std::move(report);
  reporting::add_figure(fill.figures, "sustained.bw", 380e6);  // as the method publishes it
  reporting::WorkloadResult timed;
  timed.id = "timed";
  timed.write = reporting::DirectionResult{};
  auto v = judge(sheet, s, {fill, timed});
  EXPECT_EQ(v[0].status, reporting::VerdictStatus::Pass);
  EXPECT_EQ(v[0].message,
            "measured write 380 MB/s, 5.0% below the claimed 400 MB/s (tolerance 10%)");
  EXPECT_EQ(v[1].status, reporting::VerdictStatus::Error);
  EXPECT_EQ(v[1].message, "workload 'timed' is not a <sustained-write>, so it has no sustained.bw");
}

// The fault engine's throughput cliff: writes past N bytes take 4x as long. One pass of
// sequential 128 KiB writes over 96 MiB with N = 64 MiB.
// Time is the fault engine's manual clock, read by the runner too: the run takes no real time and
// its rates are exact, whatever else the machine is doing.
std::shared_ptr<engines::ManualClock> g_clock;
std::uint64_t manual_now() noexcept {
  return static_cast<std::uint64_t>(g_clock->now().count());
}

TEST(SustainedWriteOnFaultEngine, FindsTheCacheWithinFivePercent) {
  constexpr std::uint64_t kCache = 64ull << 20;
  WorkloadSpec w;
  w.id = "cliff";
  w.params.ioengine = "null";
  w.params.target = "null";
  w.params.bs = 128 * 1024;
  w.params.iodepth = 4;
  w.params.size = 96ull << 20;
  w.interval_s = 0.02;
  g_clock = std::make_shared<engines::ManualClock>();
  g_clock->advance(std::chrono::seconds(1));
  RunOptions ro;
  ro.now = manual_now;
  ro.wrap_engine = [](std::unique_ptr<engines::Engine> inner) -> std::unique_ptr<engines::Engine> {
    engines::FaultPlan plan;
    plan.latency = engines::FaultPlan::Latency{.base = std::chrono::microseconds(1000)};
    plan.throughput_cliff =
        engines::FaultPlan::ThroughputCliff{.after_bytes = kCache, .slowdown = 4.0};
    return std::make_unique<engines::FaultEngine>(std::move(inner), plan, g_clock);
  };
  SustainedWrite how;
  how.volume_factor = 1;
  auto r = run_sustained_write(w, how, [&](const WorkloadSpec& s) { return run_workload(s, ro); });
  ASSERT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_TRUE(sustained_write_report(r));
  const auto& sw = *sustained_write_report(r);
  EXPECT_TRUE(sw.dropped);
  EXPECT_NEAR(static_cast<double>(sw.cache_bytes), static_cast<double>(kCache), 0.05 * kCache)
      << "initial " << sw.initial_bw << " B/s, post-cache " << sw.post_cache_bw << " B/s";
  // After the cliff the rate is a quarter of the initial one: 4 x 128 KiB per ms, then per 4 ms.
  EXPECT_NEAR(sw.initial_bw, 4.0 * 131072 / 1e-3, 0.05 * 4.0 * 131072 / 1e-3);
  EXPECT_NEAR(sw.post_cache_bw / sw.initial_bw, 0.25, 0.03);
  if (::testing::Test::HasFailure())
    for (auto& p : r.timeline) std::fprintf(stderr, "%.3f %.0f\n", p.t_s, p.write_bw / 1e6);

  // The method publishes its figures by name, and a claim on one is judged by looking it up:
  // sustained.initial_bw is one row of model/metric.hpp's figure_table() and one add_figure.
  ASSERT_EQ(r.figures.size(), 2u);
  EXPECT_EQ(r.figures[0].name, "sustained.bw");
  EXPECT_EQ(r.figures[0].value, sw.post_cache_bw);
  EXPECT_EQ(r.figures[1].name, "sustained.initial_bw");
  EXPECT_EQ(r.figures[1].value, sw.initial_bw);
  EXPECT_EQ(r.figures[1].unit, "B/s");
  const Suite suite = Suite::parse(
      "<suite name=\"t\"><sustained-write id=\"cliff\" bs=\"128k\"/></suite>", "t.xml");
  const SpecSheet sheet = SpecSheet::parse(
      "<spec-sheet name=\"x\" suite=\"t\"><match model=\"*\"/><claims>"
      "<claim workload=\"cliff\" metric=\"sustained.initial_bw\" value=\"520MB/s\"/>"
      "<claim workload=\"cliff\" metric=\"sustained.bw\" value=\"520MB/s\"/>"
      "</claims></spec-sheet>",
      "x.xml");
  EXPECT_EQ(sheet.claims[0].metric.figure, reporting::find_figure("sustained.initial_bw"));
  EXPECT_EQ(sheet.claims[0].metric.direction, MetricDirection::Write);
  const auto v = judge(sheet, suite, {r});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].status, reporting::VerdictStatus::Pass) << v[0].message;  // 524 MB/s measured
  EXPECT_EQ(v[1].status, reporting::VerdictStatus::Fail) << v[1].message;  // 131 MB/s after it
  EXPECT_EQ(v[0].figure,
            "write bandwidth before any drop (median of the first intervals: the burst rate), sum "
            "over 1 job");
  EXPECT_NE(v[0].message.find("measured write 52"), std::string::npos) << v[0].message;
}

}  // namespace
}  // namespace storqual::runner
