// SPDX-License-Identifier: Apache-2.0
// The latency-bounded search finds the known answer on a device whose latency grows with the
// queue depth by a known law (Little's law with a fixed service rate).
#include "runner/methods/latency_search.hpp"

#include <gtest/gtest.h>

namespace storqual::runner {
namespace {

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
  EXPECT_EQ(out.best.kind, "latency-search");
  EXPECT_EQ(out.best.latency_curve.size(), out.curve.size());
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

}  // namespace
}  // namespace storqual::runner
