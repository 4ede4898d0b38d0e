// SPDX-License-Identifier: Apache-2.0
// The latency-bounded search finds the known answer on a device whose latency grows with the
// queue depth by a known law (Little's law with a fixed service rate); the default sweep runs
// every depth and finds the best passing one past a failing one on a device whose curve is not
// monotone (the fault engine's latency-by-depth law with a bump); the bound's statistic is lat or
// clat, mean or a percentile, and is named in the result.
#include "runner/methods/latency_search/latency_search.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "engines/fault_engine.hpp"
#include "runner/measure/fault_spec.hpp"
#include "runner/measure/job_runner.hpp"

namespace storqual::runner {
namespace {

const LatencySearchMethodReport& report_of(const reporting::WorkloadResult& r) {
  static const LatencySearchMethodReport none;
  const auto* report = dynamic_cast<const LatencySearchMethodReport*>(r.method.get());
  return report ? *report : none;
}

// A device whose IOPS grow linearly with depth up to a knee (each I/O takes base_ns), and only
// slowly past it (0.2% per extra request); latency follows Little's law: depth / IOPS.
double model_iops(double depth, double base_ns, unsigned knee) {
  return depth < knee ? depth * 1e9 / base_ns : knee * 1e9 / base_ns * (1 + 0.002 * (depth - knee));
}
double model_latency_ns(double depth, double base_ns, unsigned knee) {
  return depth / model_iops(depth, base_ns, knee) * 1e9;
}
// The deepest depth whose (statistic = factor x mean latency) stays within the limit.
unsigned exact_answer(double limit_ns, double factor, unsigned max_depth) {
  unsigned best = 0;
  for (unsigned d = 1; d <= max_depth; ++d)
    if (factor * model_latency_ns(d, 100000, 8) <= limit_ns) best = d;
  return best;
}

reporting::WorkloadResult modelled(const WorkloadSpec& w, double base_ns, unsigned knee) {
  double depth = w.params.iodepth;
  double iops = model_iops(depth, base_ns, knee);
  double lat = model_latency_ns(depth, base_ns, knee);
  reporting::WorkloadResult r;
  r.id = w.id;
  r.params = w.params;
  reporting::DirectionResult d;
  d.iops = iops;
  d.ios = 1000;
  d.lat.samples = 1000;
  d.lat.mean_ns = lat;
  d.lat.percentiles = {{99.0, static_cast<std::uint64_t>(lat * 2)}};
  r.read = d;
  return r;
}

TEST(LatencySearch, FindsTheDeepestDepthUnderTheLimit) {
  // base 100 us, knee at depth 8: the known answer for a 1 ms mean is depth 93.
  LatencySearch s;
  s.max_iodepth = 1024;
  s.limit_ns = 1e6;
  s.bisect = true;
  WorkloadSpec w;
  w.id = "lat";
  int runs = 0;
  auto out = search_latency_bound(w, s, [&](const WorkloadSpec& x) {
    ++runs;
    return modelled(x, 100000, 8);
  });
  ASSERT_TRUE(out.limit_met);
  unsigned answer = exact_answer(1e6, 1.0, 1024);
  ASSERT_EQ(answer, 93u);
  // Bisection stops within an eighth of the depth below the exact answer, never above it.
  EXPECT_GE(out.best.params.iodepth, answer - answer / 8);
  EXPECT_LE(out.best.params.iodepth, answer);
  EXPECT_DOUBLE_EQ(out.best.read->iops, model_iops(out.best.params.iodepth, 100000, 8));
  EXPECT_EQ(out.best.kind(), "latency-search");
  EXPECT_EQ(report_of(out.best).curve.size(), out.curve.size());
  EXPECT_LT(runs, 16);
  // The curve is sorted and monotone in IOPS (up to the knee) and in latency.
  for (std::size_t i = 1; i < out.curve.size(); ++i) {
    EXPECT_LT(out.curve[i - 1].iodepth, out.curve[i].iodepth);
    EXPECT_LE(out.curve[i - 1].latency_ns, out.curve[i].latency_ns);
  }
}

TEST(LatencySearch, PercentileStatistic) {
  LatencySearch s;
  s.max_iodepth = 64;
  s.limit_ns = 1e6;
  s.percentile = 99.0;
  s.stat = "p99";
  s.bisect = true;
  WorkloadSpec w;
  auto out =
      search_latency_bound(w, s, [](const WorkloadSpec& x) { return modelled(x, 100000, 8); });
  unsigned answer = exact_answer(1e6, 2.0, 64);  // p99 = 2 x mean in the model
  EXPECT_GE(out.best.params.iodepth, answer - answer / 8);
  EXPECT_LE(out.best.params.iodepth, answer);
}

TEST(LatencySearch, StopsAtMaxDepthWhenTheLimitIsNeverReached) {
  LatencySearch s;
  s.max_iodepth = 16;
  s.limit_ns = 1e9;
  WorkloadSpec w;
  auto out =
      search_latency_bound(w, s, [](const WorkloadSpec& x) { return modelled(x, 100000, 8); });
  EXPECT_TRUE(out.limit_met);
  EXPECT_EQ(out.best.params.iodepth, 16u);
  EXPECT_EQ(out.curve.back().iodepth, 16u);
}

TEST(LatencySearch, LimitNotMetAtDepthOneIsReported) {
  LatencySearch s;
  s.limit_ns = 1000;
  WorkloadSpec w;
  auto out =
      search_latency_bound(w, s, [](const WorkloadSpec& x) { return modelled(x, 100000, 8); });
  EXPECT_FALSE(out.limit_met);
  EXPECT_EQ(out.best.params.iodepth, 1u);
  ASSERT_FALSE(out.best.errors.empty());
  EXPECT_NE(out.best.errors[0].find("not met"), std::string::npos);
}

TEST(LatencySearch, DefaultSweepRunsEveryDepthAndReportsTheWholeCurve) {
  LatencySearch s;
  s.max_iodepth = 1024;
  s.limit_ns = 1e6;
  WorkloadSpec w;
  std::vector<unsigned> depths;
  auto out = search_latency_bound(w, s, [&](const WorkloadSpec& x) {
    depths.push_back(x.params.iodepth);
    return modelled(x, 100000, 8);
  });
  const std::vector<unsigned> every = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  EXPECT_EQ(depths, every);  // past the first failing depth (128) too
  ASSERT_EQ(out.curve.size(), every.size());
  EXPECT_FALSE(out.curve.back().within_limit);
  EXPECT_EQ(out.best.params.iodepth, 64u);  // the best passing point of the sweep (exact: 93)
  EXPECT_EQ(report_of(out.best).stat, "lat.mean");
  // A maximum that is not a power of two is the last step.
  s.max_iodepth = 48;
  depths.clear();
  (void)search_latency_bound(w, s, [&](const WorkloadSpec& x) {
    depths.push_back(x.params.iodepth);
    return modelled(x, 100000, 8);
  });
  EXPECT_EQ(depths, (std::vector<unsigned>{1, 2, 4, 8, 16, 32, 48}));
}

// lat (submission to completion) or clat (completion only): the search compares the one asked
// for. Here submission takes 400 us at every depth, so lat fails a 150 us limit everywhere, while
// clat (100 us up to the knee at 8, 196 us at 16) passes up to 8.
TEST(LatencySearch, ClatOrLatIsSelectable) {
  auto measure = [](const WorkloadSpec& x) {
    reporting::WorkloadResult r = modelled(x, 100000, 8);
    r.read->clat = r.read->lat;
    r.read->lat.mean_ns += 400000;
    for (auto& p : r.read->lat.percentiles) p.second += 400000;
    return r;
  };
  LatencySearch s;
  s.max_iodepth = 16;
  s.limit_ns = 150000;
  WorkloadSpec w;
  auto lat = search_latency_bound(w, s, measure);
  EXPECT_FALSE(lat.limit_met);
  EXPECT_EQ(report_of(lat.best).stat, "lat.mean");
  s.latency = "clat";
  auto clat = search_latency_bound(w, s, measure);
  EXPECT_TRUE(clat.limit_met);
  EXPECT_EQ(clat.best.params.iodepth, 8u);
  EXPECT_EQ(report_of(clat.best).stat, "clat.mean");
  s.percentile = 99.0;
  s.stat = "p99";
  EXPECT_EQ(report_of(search_latency_bound(w, s, measure).best).stat, "clat.p99");
}

// Must-show: a device whose latency by depth is not monotone. The fault engine's law: 50 us +
// 40 us per request in flight, plus 10 ms while 3 or 4 are in flight. With a 2 ms mean limit,
// depth 4 fails (10.21 ms), 8, 16 and 32 pass (0.37, 0.69 and 1.33 ms), 64 fails (2.61 ms). The
// sweep finds 32, past the failing 4; a bisection stops at 2. Time is the fault engine's manual
// clock, read by the runner too, so the run takes no real time and the figures are exact (no
// timing on a shared machine).
std::shared_ptr<engines::ManualClock> g_clock;
std::uint64_t manual_now() noexcept {
  return static_cast<std::uint64_t>(g_clock->now().count());
}

TEST(LatencySearch, SweepFindsTheBestPassingDepthPastAFailingOne) {
  WorkloadSpec w;
  w.id = "bumpy";
  w.params.ioengine = "null";
  w.params.target = "nothing-here";
  w.params.rw = "randread";
  w.params.size = 4096ull * 4096;
  w.params.runtime_s = 0.3;
  w.interval_s = 0.1;
  g_clock = std::make_shared<engines::ManualClock>();
  g_clock->advance(std::chrono::seconds(1));
  const engines::FaultPlan plan =
      parse_fault_plan("latency:base=50us,per_in_flight=40us,bump=10ms,bump_from=3,bump_to=4");
  RunOptions o;
  o.now = manual_now;
  o.wrap_engine = [&](std::unique_ptr<engines::Engine> inner) -> std::unique_ptr<engines::Engine> {
    return std::make_unique<engines::FaultEngine>(std::move(inner), plan, g_clock);
  };
  auto measure = [&](const WorkloadSpec& x) { return run_workload(x, o); };
  LatencySearch s;
  s.max_iodepth = 64;
  s.limit_ns = 2e6;
  auto out = search_latency_bound(w, s, measure);
  ASSERT_EQ(out.curve.size(), 7u);
  std::string curve;
  for (const auto& p : out.curve) {
    char step[96];
    std::snprintf(step, sizeof step, "iodepth %u: %.0f IOPS, lat.mean %.0f us, %s; ", p.iodepth,
                  p.iops, p.latency_ns / 1000, p.within_limit ? "within" : "over");
    curve += step;
  }
  std::printf("curve: %s\n", curve.c_str());
  EXPECT_TRUE(out.curve[0].within_limit) << curve;
  EXPECT_TRUE(out.curve[1].within_limit) << curve;
  EXPECT_FALSE(out.curve[2].within_limit) << curve;  // depth 4: the bump
  EXPECT_NEAR(out.curve[2].latency_ns, 10.21e6, 0.05e6) << curve;
  EXPECT_NEAR(out.curve[5].latency_ns, 1.33e6, 0.05e6) << curve;
  EXPECT_TRUE(out.curve[3].within_limit) << curve;   // 8
  EXPECT_TRUE(out.curve[5].within_limit) << curve;   // 32
  EXPECT_FALSE(out.curve[6].within_limit) << curve;  // 64
  ASSERT_TRUE(out.limit_met);
  EXPECT_EQ(out.best.params.iodepth, 32u) << curve;
  EXPECT_GT(out.best.read->iops, out.curve[1].iops) << curve;
  s.bisect = true;
  auto bisected = search_latency_bound(w, s, measure);
  EXPECT_EQ(bisected.best.params.iodepth, 2u);
  EXPECT_LE(bisected.curve.back().iodepth, 4u);
}

}  // namespace
}  // namespace storqual::runner
