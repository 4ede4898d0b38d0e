// SPDX-License-Identifier: Apache-2.0
// The SNIA SSS PTS steady-state criteria over a series (range and slope over the last window),
// a pure function: the rounds method (runner/methods/steady_state/steady_state.hpp) and early stop
// (runner/measure/early_stop.hpp) both judge a series with it (docs/methodology.md).
#pragma once

#include <span>
#include <string>

#include "model/result.hpp"

namespace storqual::runner {

// What a workload's rounds look like (suite attributes rounds, round_time, steady_metric).
struct SteadyStateConfig {
  unsigned max_rounds = 25;
  unsigned window = 5;
  double round_time_s = 0;      // 0: the workload's own runtime
  std::string metric = "iops";  // iops | bw | lat.mean
  double range_limit_pct = 20;
  double slope_limit_pct = 10;
};

// The criteria over the last config.window values of `series` (a report with rounds empty).
// With fewer values than the window, the window is what there is and steady is false.
[[nodiscard]] reporting::SteadyStateReport evaluate_window(std::span<const double> series,
                                                           const SteadyStateConfig& config);

}  // namespace storqual::runner
