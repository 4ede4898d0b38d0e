// SPDX-License-Identifier: Apache-2.0
// The histogram keeps its stated bound: bucket round trip, merge = union, percentiles against
// exact percentiles of sorted random samples.
#include "runner/measure/latency_histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace storqual::runner {
namespace {

constexpr double kBound = 1.0 / 128;  // the header's stated worst-case relative error

// Exact percentile with the same rank rule: the ceil(p/100*n)-th smallest sample.
std::uint64_t exact_percentile(const std::vector<std::uint64_t>& sorted, double p) {
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

std::vector<std::uint64_t> log_uniform_samples(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(0, 40);  // 1 ns .. ~18 minutes
  std::vector<std::uint64_t> v(n);
  for (auto& x : v) x = static_cast<std::uint64_t>(std::pow(2.0, exponent(rng)));
  return v;
}

TEST(LatencyHistogram, EveryValueFallsInABucketWhoseMidpointIsWithinTheBound) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t v = rng() >> (rng() % 64);
    if (v >= (1ull << 41)) continue;  // beyond the stated range
    unsigned idx = LatencyHistogram::index_of(v);
    std::uint64_t low = LatencyHistogram::bucket_low(idx);
    std::uint64_t width = LatencyHistogram::bucket_width(idx);
    ASSERT_GE(v, low) << v;
    ASSERT_LT(v, low + width) << v;
    double mid = static_cast<double>(low) + static_cast<double>(width / 2);
    ASSERT_LE(std::fabs(mid - static_cast<double>(v)), kBound * static_cast<double>(v) + 0.5) << v;
  }
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  for (std::uint64_t v = 0; v < 128; ++v) {
    LatencyHistogram h;
    h.add(v);
    EXPECT_EQ(h.percentile(50), v);
  }
}

TEST(LatencyHistogram, ValuesPastTheRangeLandInTheLastBucketAndKeepExactMax) {
  LatencyHistogram h;
  h.add(1ull << 50);
  h.add(1000);
  EXPECT_EQ(h.max(), 1ull << 50);
  EXPECT_EQ(h.percentile(100), 1ull << 50);
  EXPECT_EQ(LatencyHistogram::index_of(UINT64_MAX), LatencyHistogram::kBuckets - 1);
}

TEST(LatencyHistogram, PercentilesAgreeWithExactOnesWithinTheStatedBound) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    auto samples = log_uniform_samples(100000, seed);
    LatencyHistogram h;
    for (auto v : samples) h.add(v);
    std::sort(samples.begin(), samples.end());
    auto got = h.percentiles(kFioPercentiles);
    ASSERT_EQ(got.size(), kFioPercentiles.size());
    for (auto [p, value] : got) {
      double exact = static_cast<double>(exact_percentile(samples, p));
      EXPECT_LE(std::fabs(static_cast<double>(value) - exact), kBound * exact + 0.5)
          << "p" << p << " seed " << seed;
      EXPECT_EQ(value, h.percentile(p));
    }
  }
}

TEST(LatencyHistogram, ExactStatistics) {
  std::vector<std::uint64_t> v = {100, 200, 300, 400, 1000000};
  LatencyHistogram h;
  for (auto x : v) h.add(x);
  double mean = 0;
  for (auto x : v) mean += static_cast<double>(x);
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (auto x : v) var += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
  var /= static_cast<double>(v.size() - 1);
  EXPECT_EQ(h.count(), 5u);
  EXPECT_EQ(h.min(), 100u);
  EXPECT_EQ(h.max(), 1000000u);
  EXPECT_DOUBLE_EQ(h.mean(), mean);
  EXPECT_NEAR(h.stdev(), std::sqrt(var), 1e-6 * std::sqrt(var));
}

TEST(LatencyHistogram, MergeEqualsTheHistogramOfTheUnion) {
  auto a = log_uniform_samples(50000, 7);
  auto b = log_uniform_samples(30000, 8);
  LatencyHistogram ha, hb, hu;
  for (auto x : a) ha.add(x), hu.add(x);
  for (auto x : b) hb.add(x), hu.add(x);
  ha.merge(hb);
  EXPECT_EQ(ha.count(), hu.count());
  EXPECT_EQ(ha.min(), hu.min());
  EXPECT_EQ(ha.max(), hu.max());
  EXPECT_DOUBLE_EQ(ha.mean(), hu.mean());
  EXPECT_DOUBLE_EQ(ha.stdev(), hu.stdev());
  for (double p : kFioPercentiles) EXPECT_EQ(ha.percentile(p), hu.percentile(p)) << p;
}

TEST(LatencyHistogram, EmptyHistogramReportsZeros) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.percentile(99), 0u);
  EXPECT_TRUE(h.percentiles(kFioPercentiles).empty());
}

}  // namespace
}  // namespace storqual::runner
