// SPDX-License-Identifier: Apache-2.0
// The SNIA SSS PTS steady-state criteria (see steady_criteria.hpp).
#include "runner/measure/steady_criteria.hpp"

#include <algorithm>
#include <cmath>

namespace storqual::runner {

reporting::SteadyStateReport evaluate_window(std::span<const double> series,
                                             const SteadyStateConfig& config) {
  reporting::SteadyStateReport r;
  r.metric = config.metric;
  r.max_rounds = config.max_rounds;
  r.window = config.window;
  r.round_time_s = config.round_time_s;
  r.range_limit_pct = config.range_limit_pct;
  r.slope_limit_pct = config.slope_limit_pct;
  if (series.empty()) return r;
  const std::size_t n = std::min<std::size_t>(series.size(), std::max(1u, config.window));
  r.window_last = series.size() - 1;
  r.window_first = series.size() - n;
  auto w = series.subspan(r.window_first, n);
  double sum = 0;
  for (double v : w) sum += v;
  r.mean = sum / static_cast<double>(n);
  auto [lo, hi] = std::minmax_element(w.begin(), w.end());
  r.range = *hi - *lo;
  // Least squares of value against round index (0..n-1).
  if (n > 1) {
    const double xm = static_cast<double>(n - 1) / 2;
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double dx = static_cast<double>(i) - xm;
      sxy += dx * (w[i] - r.mean);
      sxx += dx * dx;
    }
    r.slope = sxy / sxx;
  }
  if (r.mean > 0) {
    r.range_pct = r.range / r.mean * 100;
    r.slope_pct = std::fabs(r.slope) * static_cast<double>(n - 1) / r.mean * 100;
  } else {  // nothing measured: never steady
    r.range_pct = r.slope_pct = r.range > 0 || r.slope != 0 ? 100 : 0;
  }
  r.steady = n >= config.window && r.mean > 0 && r.range_pct <= config.range_limit_pct &&
             r.slope_pct <= config.slope_limit_pct;
  return r;
}

}  // namespace storqual::runner
