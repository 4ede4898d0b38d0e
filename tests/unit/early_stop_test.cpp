// SPDX-License-Identifier: Apache-2.0
// The early-stop rule on synthetic series: parsing, the t quantile, the autocorrelation-corrected
// interval (its coverage on AR(1) noise, where the uncorrected one is too narrow), and decisions.
#include "runner/measure/early_stop.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

// AR(1) around `mean`: x_t = mean + phi (x_{t-1} - mean) + e_t, e_t ~ N(0, sd^2).
std::vector<double> ar1(std::size_t n, double mean, double sd, double phi, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> e(0, sd);
  std::vector<double> x(n);
  double dev = 0;
  for (auto& v : x) {
    dev = phi * dev + e(gen);
    v = mean + dev;
  }
  return x;
}

TEST(EarlyStopParse, RuleWithDefaultsAndKeys) {
  auto r = parse_early_stop("ci:1%@95");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->half_width_pct, 1);
  EXPECT_DOUBLE_EQ(r->confidence_pct, 95);
  EXPECT_LT(r->min_time_s, 0);  // automatic: resolve_early_stop
  EXPECT_LT(r->cover, 0);
  EXPECT_DOUBLE_EQ(r->sample_s, 0);
  EXPECT_EQ(r->metric, "iops");
  r = parse_early_stop("ci:2.5%@90,min=5s,every=100ms,cover=0.5,metric=bw");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->half_width_pct, 2.5);
  EXPECT_DOUBLE_EQ(r->confidence_pct, 90);
  EXPECT_DOUBLE_EQ(r->min_time_s, 5);
  EXPECT_DOUBLE_EQ(r->sample_s, 0.1);
  EXPECT_DOUBLE_EQ(r->cover, 0.5);
  EXPECT_EQ(r->metric, "bw");
  EXPECT_EQ(r->text, "ci:2.5%@90,min=5s,every=100ms,cover=0.5,metric=bw");
  EXPECT_FALSE(parse_early_stop("off"));
  EXPECT_FALSE(parse_early_stop(""));
}

TEST(EarlyStopParse, MalformedRulesSayWhat) {
  for (const char* bad : {"ci:1%", "1%@95", "ci:x@95", "ci:0%@95", "ci:1%@100", "ci:1%@95,min",
                          "ci:1%@95,speed=3", "ci:1%@95,metric=lat", "ci:1%@95,every=1ms",
                          "ci:1%@95,cover=x", "ci:1%@95,cover=-1", "ci:1%@95,cover=1x"}) {
    try {
      (void)parse_early_stop(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UnitError& e) {
      EXPECT_NE(std::string(e.what()).find("early_stop"), std::string::npos) << e.what();
    }
  }
}

TEST(EarlyStopResolve, AutomaticValuesFollowTheWorkload) {
  const EarlyStopRule rule = *parse_early_stop("ci:1%@95");
  // A 60 s reader with 1 s timeline intervals: 3 s minimum, 250 ms samples, no region pass.
  auto r = resolve_early_stop(rule, 60, 1, false);
  EXPECT_DOUBLE_EQ(r.min_time_s, 3);
  EXPECT_DOUBLE_EQ(r.sample_s, 0.25);
  EXPECT_DOUBLE_EQ(r.cover, 0);
  // A 3 s writer: a fifth of the runtime, a hundredth of it per sample, one region pass.
  r = resolve_early_stop(rule, 3, 1, true);
  EXPECT_NEAR(r.min_time_s, 0.6, 1e-12);
  EXPECT_NEAR(r.sample_s, 0.03, 1e-12);
  EXPECT_DOUBLE_EQ(r.cover, 1);
  // Samples never finer than 10 ms nor coarser than the timeline interval.
  EXPECT_DOUBLE_EQ(resolve_early_stop(rule, 0.5, 1, false).sample_s, 0.01);
  EXPECT_DOUBLE_EQ(resolve_early_stop(rule, 60, 0.1, false).sample_s, 0.1);
  // What the rule says is kept.
  r = resolve_early_stop(*parse_early_stop("ci:1%@95,min=10s,every=50ms,cover=0"), 3, 1, true);
  EXPECT_DOUBLE_EQ(r.min_time_s, 10);
  EXPECT_DOUBLE_EQ(r.sample_s, 0.05);
  EXPECT_DOUBLE_EQ(r.cover, 0);
}

TEST(EarlyStopInterval, StudentTQuantiles) {
  // Exact values: t(0.975; 10) = 2.2281, t(0.975; 30) = 2.0423, t(0.95; 20) = 1.7247.
  EXPECT_NEAR(student_t_quantile(95, 10), 2.2281, 0.005);
  EXPECT_NEAR(student_t_quantile(95, 30), 2.0423, 0.002);
  EXPECT_NEAR(student_t_quantile(90, 20), 1.7247, 0.002);
  EXPECT_NEAR(student_t_quantile(95, 1e7), 1.95996, 1e-4);
  EXPECT_GT(student_t_quantile(95, 4), student_t_quantile(95, 8));
}

TEST(EarlyStopInterval, IndependentSamplesGiveTheTextbookInterval) {
  const auto x = ar1(400, 1000, 10, 0, 7);
  const auto e = estimate_interval(x, 95);
  EXPECT_NEAR(e.mean, 1000, 2);
  EXPECT_NEAR(e.lag1, 0, 0.15);
  // About 1.97 * 10 / sqrt(400) ~ 1 (n_eff near n).
  EXPECT_NEAR(e.half_width, 1.0, 0.25);
  EXPECT_NEAR(e.half_width_pct, e.half_width / e.mean * 100, 1e-12);
}

TEST(EarlyStopInterval, AutocorrelationWidensTheIntervalToItsNominalCoverage) {
  // AR(1) with phi 0.8: the plain standard error is 3x too small. Over 400 series of 100
  // samples, the corrected 95% interval covers the true mean nearly as often as it says; the
  // uncorrected one (n_eff = n) far less often.
  int covered = 0, covered_naive = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    const auto x = ar1(100, 500, 10, 0.8, 1000 + t);
    const auto e = estimate_interval(x, 95);
    EXPECT_LT(e.n_eff, 40);
    if (std::fabs(e.mean - 500) <= e.half_width) ++covered;
    // The same series judged as if independent.
    double var = 0;
    for (double v : x) var += (v - e.mean) * (v - e.mean);
    var /= static_cast<double>(x.size() - 1);
    const double naive = student_t_quantile(95, 99) * std::sqrt(var / 100);
    if (std::fabs(e.mean - 500) <= naive) ++covered_naive;
  }
  EXPECT_GE(covered, trials * 85 / 100);
  EXPECT_LE(covered_naive, trials * 70 / 100);
}

TEST(EarlyStopDecision, SettledSeriesStopsAfterTheMinimumOnly) {
  EarlyStopRule rule = *parse_early_stop("ci:1%@95,min=3s");
  const auto x = ar1(40, 100000, 1000, 0.3, 3);  // 1% noise per 250 ms sample
  // 2 s measured: below the minimum, whatever the interval.
  auto d = decide_early_stop(std::span(x).first(8), 0.25, rule);
  EXPECT_FALSE(d.stop);
  EXPECT_NE(d.why_not.find("minimum"), std::string::npos) << d.why_not;
  // 10 s measured: the interval is well inside +-1% and the blocks are steady.
  d = decide_early_stop(x, 0.25, rule);
  EXPECT_TRUE(d.stop) << d.why_not;
  EXPECT_TRUE(d.steady);
  EXPECT_LT(d.interval.half_width_pct, 1);
  auto report = early_stop_report(rule, d, true, 0.25);
  EXPECT_TRUE(report.stopped_early);
  EXPECT_EQ(report.samples, 40u);
  EXPECT_DOUBLE_EQ(report.stopped_at_s, 10);
  EXPECT_NE(report.reason.find("stopped early after 10.0 s"), std::string::npos) << report.reason;
}

TEST(EarlyStopDecision, NoisySeriesRunsOn) {
  EarlyStopRule rule = *parse_early_stop("ci:1%@95");
  const auto x = ar1(60, 100000, 20000, 0.5, 5);  // 20% noise, correlated
  auto d = decide_early_stop(x, 0.25, rule);
  EXPECT_FALSE(d.stop);
  EXPECT_NE(d.why_not.find("interval"), std::string::npos) << d.why_not;
  auto report = early_stop_report(rule, d, false, 0.25);
  EXPECT_FALSE(report.stopped_early);
  EXPECT_NE(report.reason.find("time limit"), std::string::npos) << report.reason;
  EXPECT_GT(report.half_width_pct, 1);
}

TEST(EarlyStopDecision, TrendIsNotASettledFigure) {
  // A write cache draining: 60% down over the run, with almost no noise. The autocorrelation
  // leaves few effective samples, and the blocks fail the SNIA range/slope criteria.
  EarlyStopRule rule = *parse_early_stop("ci:5%@95,min=1s");
  std::vector<double> x(80);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 100000 - 750.0 * static_cast<double>(i);
  auto d = decide_early_stop(x, 0.25, rule);
  EXPECT_FALSE(d.stop);
  EXPECT_FALSE(d.steady);
}

TEST(EarlyStopDecision, AWriterWaitsForItsRegionPasses) {
  const EarlyStopRule rule = resolve_early_stop(*parse_early_stop("ci:1%@95"), 60, 1, true);
  const std::vector<double> x(40, 1000.0);  // 10 s, settled
  auto d = decide_early_stop(x, 0.25, rule, 0.6);
  EXPECT_FALSE(d.stop);
  EXPECT_NE(d.why_not.find("wrote 0.60 of the 1.00 region passes"), std::string::npos) << d.why_not;
  auto report = early_stop_report(rule, d, false, 0.25, 0.6);
  EXPECT_DOUBLE_EQ(report.cover, 1);
  EXPECT_DOUBLE_EQ(report.region_passes, 0.6);
  d = decide_early_stop(x, 0.25, rule, 1.0);
  EXPECT_TRUE(d.stop) << d.why_not;
}

TEST(EarlyStopDecision, NeedsEnoughSamples) {
  EarlyStopRule rule = *parse_early_stop("ci:1%@95,min=0s");
  const std::vector<double> x(6, 1000.0);  // constant: a zero-width interval, but 6 samples
  auto d = decide_early_stop(x, 1, rule);
  EXPECT_FALSE(d.stop);
  EXPECT_NE(d.why_not.find("samples"), std::string::npos) << d.why_not;
}

}  // namespace
}  // namespace storqual::runner
