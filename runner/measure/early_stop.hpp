// SPDX-License-Identifier: Apache-2.0
// Early stop: a workload may end before its runtime once its tracked figure is known well enough.
//
// Rule "ci:H%@C[,min=T][,every=S][,cover=P][,metric=iops|bw]": sample the figure every S (default:
// a hundredth of the runtime, at most the timeline interval and 250 ms, at least 10 ms) from the
// end of the ramp; stop once
//   - at least T has been measured (default: 3 s, at most a fifth of the runtime) and never fewer
//     than 12 samples,
//   - a workload that writes has written P times its region in the measured time (default: 1 for
//     a workload that writes, 0 for one that only reads): a drive's write cache (DRAM, SLC) holds
//     a steady fast figure until it fills, and a suite sizes its region to get past it; a stop
//     before the region was written once would undo that,
//   - the C% confidence interval of the mean is within +-H% of it, and
//   - the SNIA PTS steady-state criteria (range <= 20%, least-squares excursion <= 10% of the mean)
//     hold over the samples split into 5 consecutive blocks (a trend is not a settled figure).
// The samples of a device are autocorrelated (a slow interval is followed by a slow one), which
// makes the plain standard error too small: the interval uses the effective sample size
// n_eff = n (1 - r1) / (1 + r1) from the lag-1 autocorrelation r1 (taken as 0 when negative, at
// most 0.95), and Student's t quantile at n_eff - 1 degrees of freedom.
// At the time limit the same interval is reported; a claim it straddles is inconclusive
// (runner/judge/verdict.hpp). The decision is pure (decide_early_stop over a series); run_workload
// applies it from a sampler thread that moves the jobs' end forward.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "model/result.hpp"

namespace storqual::runner {

struct EarlyStopRule {
  double half_width_pct = 1;
  double confidence_pct = 95;
  double min_time_s = -1;  // < 0: automatic (resolve_early_stop)
  double sample_s = 0;     // 0: automatic
  double cover = -1;       // region passes written before a stop; < 0: automatic
  std::string metric = "iops";
  std::string text;  // as given, for the report
};

inline constexpr std::size_t kEarlyStopMinSamples = 12;
inline constexpr unsigned kEarlyStopBlocks = 5;
inline constexpr double kEarlyStopMinTimeS = 3;       // the automatic minimum, at most runtime/5
inline constexpr double kEarlyStopMaxSampleS = 0.25;  // the automatic sample interval's bounds
inline constexpr double kEarlyStopMinSampleS = 0.01;

// Parses a rule; nullopt for "off"/"0"/"". Throws UnitError on anything else malformed.
[[nodiscard]] std::optional<EarlyStopRule> parse_early_stop(std::string_view text);

// The rule for one workload with its automatic values made concrete: `runtime_s` its time limit,
// `interval_s` its timeline interval, `writes` whether it writes.
[[nodiscard]] EarlyStopRule resolve_early_stop(EarlyStopRule rule, double runtime_s,
                                               double interval_s, bool writes);

struct IntervalEstimate {
  double mean = 0;
  double half_width = 0;
  double half_width_pct = 0;  // of |mean|; infinity when the mean is 0
  double lag1 = 0;
  double n_eff = 0;
  std::size_t n = 0;
};

// The confidence interval of the mean of `x` at `confidence_pct`, autocorrelation-corrected.
[[nodiscard]] IntervalEstimate estimate_interval(std::span<const double> x, double confidence_pct);

// Student's t quantile (two-sided: the value t with P(|T| <= t) = confidence) at `df` degrees
// of freedom (Hill's approximation; df may be fractional, >= 1).
[[nodiscard]] double student_t_quantile(double confidence_pct, double df);

struct StopDecision {
  bool stop = false;
  std::string why_not;  // when not: "measured 1.2 s of 3 s minimum", "interval +-3.1% > 1%", ...
  IntervalEstimate interval;
  bool steady = false;  // the block criteria held
};

// Whether a workload sampled into `series` (one value per rule.sample_s) may stop now, having
// written `region_passes` times its region in the measured time.
[[nodiscard]] StopDecision decide_early_stop(std::span<const double> series, double sample_s,
                                             const EarlyStopRule& rule, double region_passes = 0);

// The report for a workload: `decision` at the stop (or at the time limit when !stopped_early).
[[nodiscard]] reporting::EarlyStopReport early_stop_report(const EarlyStopRule& rule,
                                                           const StopDecision& decision,
                                                           bool stopped_early, double sample_s,
                                                           double region_passes = 0);

}  // namespace storqual::runner
