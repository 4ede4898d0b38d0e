// SPDX-License-Identifier: Apache-2.0
// The early-stop rule (see early_stop.hpp).
#include "runner/measure/early_stop.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "model/quantity_format.hpp"
#include "runner/base/units.hpp"
#include "runner/measure/steady_criteria.hpp"

namespace storqual::runner {
namespace {

using reporting::format_fixed;

// The standard normal quantile: Newton's method on erfc (a dozen steps reach double precision
// from 0 for the probabilities used here).
double normal_quantile(double p) {
  double x = 0;
  for (int i = 0; i < 60; ++i) {
    const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
    const double pdf = std::exp(-x * x / 2) / std::sqrt(2 * M_PI);
    const double step = (cdf - p) / pdf;
    x -= step;
    if (std::fabs(step) < 1e-12) break;
  }
  return x;
}

}  // namespace

std::optional<EarlyStopRule> parse_early_stop(std::string_view text) {
  if (text.empty() || text == "off" || text == "0" || text == "none") return std::nullopt;
  auto bad = [&](const std::string& why) {
    return UnitError("early_stop: " + why + " in '" + std::string(text) +
                     "' (expected ci:H%@C[,min=T][,every=S][,cover=P][,metric=iops|bw], e.g. "
                     "ci:1%@95, or off)");
  };
  EarlyStopRule rule;
  rule.text = std::string(text);
  std::string_view rest = text;
  std::string_view head = rest.substr(0, rest.find(','));
  rest = head.size() < rest.size() ? rest.substr(head.size() + 1) : std::string_view{};
  if (head.rfind("ci:", 0) != 0) throw bad("no ci: rule");
  head.remove_prefix(3);
  const auto at = head.find('@');
  if (at == std::string_view::npos) throw bad("no @confidence");
  std::string_view hw = head.substr(0, at), conf = head.substr(at + 1);
  if (!hw.empty() && hw.back() == '%') hw.remove_suffix(1);
  if (!conf.empty() && conf.back() == '%') conf.remove_suffix(1);
  try {
    rule.half_width_pct = std::stod(std::string(hw));
    rule.confidence_pct = std::stod(std::string(conf));
  } catch (const std::exception&) {
    throw bad("a half-width or confidence that is not a number");
  }
  if (!(rule.half_width_pct > 0 && rule.half_width_pct <= 50))
    throw bad("half-width outside (0, 50]%");
  if (!(rule.confidence_pct >= 50 && rule.confidence_pct < 100))
    throw bad("confidence outside [50, 100)%");
  while (!rest.empty()) {
    std::string_view item = rest.substr(0, rest.find(','));
    rest = item.size() < rest.size() ? rest.substr(item.size() + 1) : std::string_view{};
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) throw bad("'" + std::string(item) + "' is not key=value");
    std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "min") {
      rule.min_time_s = parse_duration(value);
    } else if (key == "every") {
      rule.sample_s = parse_duration(value);
      if (rule.sample_s < 0.01) throw bad("every below 10ms");
    } else if (key == "cover") {
      try {
        std::size_t used = 0;
        rule.cover = std::stod(std::string(value), &used);
        if (used != value.size()) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        throw bad("cover that is not a number of passes");
      }
      if (!(rule.cover >= 0 && rule.cover <= 100)) throw bad("cover outside [0, 100] passes");
    } else if (key == "metric") {
      if (value != "iops" && value != "bw") throw bad("metric other than iops or bw");
      rule.metric = std::string(value);
    } else {
      throw bad("unknown key '" + std::string(key) + "'");
    }
  }
  return rule;
}

EarlyStopRule resolve_early_stop(EarlyStopRule rule, double runtime_s, double interval_s,
                                 bool writes) {
  if (rule.min_time_s < 0)
    rule.min_time_s =
        runtime_s > 0 ? std::min(kEarlyStopMinTimeS, runtime_s / 5) : kEarlyStopMinTimeS;
  if (rule.sample_s <= 0) {
    double s = kEarlyStopMaxSampleS;
    if (interval_s > 0) s = std::min(s, interval_s);
    if (runtime_s > 0) s = std::min(s, runtime_s / 100);
    rule.sample_s = std::max(s, kEarlyStopMinSampleS);
  }
  if (rule.cover < 0) rule.cover = writes ? 1 : 0;
  return rule;
}

double student_t_quantile(double confidence_pct, double df) {
  // Cornish-Fisher expansion of t around the normal quantile (Abramowitz and Stegun 26.7.5),
  // within 1% of the exact value from 3 degrees of freedom up; below, it is too small, so the
  // decision also asks for kEarlyStopMinSamples samples and n_eff of at least 4.
  const double z = normal_quantile(0.5 + confidence_pct / 200.0);
  df = std::max(df, 1.0);
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df * df * df) +
         (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df * df * df * df);
}

IntervalEstimate estimate_interval(std::span<const double> x, double confidence_pct) {
  IntervalEstimate e;
  e.n = x.size();
  if (x.empty()) {
    e.half_width = e.half_width_pct = std::numeric_limits<double>::infinity();
    return e;
  }
  double sum = 0;
  for (double v : x) sum += v;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n < 2) {
    e.half_width = e.half_width_pct = std::numeric_limits<double>::infinity();
    e.n_eff = 1;
    return e;
  }
  double c0 = 0, c1 = 0;
  for (std::size_t i = 0; i < e.n; ++i) {
    const double d = x[i] - e.mean;
    c0 += d * d;
    if (i + 1 < e.n) c1 += d * (x[i + 1] - e.mean);
  }
  const double var = c0 / static_cast<double>(e.n - 1);
  e.lag1 = c0 > 0 ? c1 / c0 : 0;
  const double r = std::clamp(e.lag1, 0.0, 0.95);
  e.n_eff = static_cast<double>(e.n) * (1 - r) / (1 + r);
  const double se = std::sqrt(var / e.n_eff);
  e.half_width = student_t_quantile(confidence_pct, e.n_eff - 1) * se;
  e.half_width_pct = e.mean != 0 ? e.half_width / std::fabs(e.mean) * 100
                                 : std::numeric_limits<double>::infinity();
  return e;
}

StopDecision decide_early_stop(std::span<const double> series, double sample_s,
                               const EarlyStopRule& rule, double region_passes) {
  StopDecision d;
  d.interval = estimate_interval(series, rule.confidence_pct);
  const double measured = static_cast<double>(series.size()) * sample_s;
  // The block criteria: SNIA PTS steady state over kEarlyStopBlocks consecutive block means.
  if (series.size() >= kEarlyStopBlocks) {
    std::vector<double> blocks(kEarlyStopBlocks, 0);
    const std::size_t n = series.size();
    for (unsigned b = 0; b < kEarlyStopBlocks; ++b) {
      const std::size_t lo = n * b / kEarlyStopBlocks, hi = n * (b + 1) / kEarlyStopBlocks;
      double s = 0;
      for (std::size_t i = lo; i < hi; ++i) s += series[i];
      blocks[b] = s / static_cast<double>(hi - lo);
    }
    SteadyStateConfig config;
    config.window = kEarlyStopBlocks;
    d.steady = evaluate_window(blocks, config).steady;
  }
  const double min_time_s = rule.min_time_s < 0 ? kEarlyStopMinTimeS : rule.min_time_s;
  if (measured + 1e-9 < min_time_s) {
    d.why_not = "measured " + format_fixed(measured, 1) + " s of the " +
                format_fixed(min_time_s, 1) + " s minimum";
  } else if (rule.cover > 0 && region_passes + 1e-9 < rule.cover) {
    d.why_not = "wrote " + format_fixed(region_passes, 2) + " of the " +
                format_fixed(rule.cover, 2) +
                " region passes a stop needs (a write cache could hide the rest)";
  } else if (series.size() < kEarlyStopMinSamples) {
    d.why_not = std::to_string(series.size()) + " samples of the " +
                std::to_string(kEarlyStopMinSamples) + " needed";
  } else if (d.interval.n_eff < 4) {
    d.why_not = "effective sample size " + format_fixed(d.interval.n_eff, 1) +
                " (autocorrelation " + format_fixed(d.interval.lag1, 2) + ") below 4";
  } else if (!(d.interval.half_width_pct <= rule.half_width_pct)) {
    d.why_not = "interval +-" + format_fixed(d.interval.half_width_pct, 2) + "% wider than +-" +
                format_fixed(rule.half_width_pct, 2) + "%";
  } else if (!d.steady) {
    d.why_not =
        "not steady over " + std::to_string(kEarlyStopBlocks) + " blocks (SNIA PTS range/slope)";
  } else {
    d.stop = true;
  }
  return d;
}

reporting::EarlyStopReport early_stop_report(const EarlyStopRule& rule, const StopDecision& d,
                                             bool stopped_early, double sample_s,
                                             double region_passes) {
  reporting::EarlyStopReport r;
  r.rule = rule.text;
  r.metric = rule.metric;
  r.stopped_early = stopped_early;
  r.target_pct = rule.half_width_pct;
  r.confidence_pct = rule.confidence_pct;
  r.mean = d.interval.mean;
  r.half_width = std::isfinite(d.interval.half_width) ? d.interval.half_width : 0;
  r.half_width_pct = std::isfinite(d.interval.half_width_pct) ? d.interval.half_width_pct : 0;
  r.lag1 = d.interval.lag1;
  r.n_eff = d.interval.n_eff;
  r.samples = static_cast<unsigned>(d.interval.n);
  r.sample_s = sample_s;
  r.stopped_at_s = static_cast<double>(d.interval.n) * sample_s;
  r.min_time_s = rule.min_time_s < 0 ? kEarlyStopMinTimeS : rule.min_time_s;
  r.cover = std::max(rule.cover, 0.0);
  r.region_passes = region_passes;
  const std::string ci = "+-" + format_fixed(r.half_width_pct, 2) + "% at " +
                         format_fixed(rule.confidence_pct, 0) + "% (n_eff " +
                         format_fixed(r.n_eff, 1) + ")";
  if (stopped_early)
    r.reason = "stopped early after " + format_fixed(r.stopped_at_s, 1) + " s: interval " + ci +
               " within +-" + format_fixed(rule.half_width_pct, 2) + "% and steady";
  else
    r.reason = "ran to its time limit: interval " + ci +
               (d.why_not.empty() ? std::string() : "; " + d.why_not);
  return r;
}

}  // namespace storqual::runner
