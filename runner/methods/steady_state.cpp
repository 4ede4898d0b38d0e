// SPDX-License-Identifier: Apache-2.0
// Steady-state detection and rounds (see steady_state.hpp).
#include "runner/methods/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/metric.hpp"

namespace storqual::runner {

double tracked_value(const reporting::WorkloadResult& r, const std::string& metric) {
  double total = 0;
  if (metric == "bw") {
    if (r.read) total += r.read->bw_bytes;
    if (r.write) total += r.write->bw_bytes;
    return total;
  }
  if (metric == "lat.mean") {
    double n = 0;
    for (const auto* d : {r.read ? &*r.read : nullptr, r.write ? &*r.write : nullptr}) {
      if (!d || d->lat.samples == 0) continue;
      total += d->lat.mean_ns * static_cast<double>(d->lat.samples);
      n += static_cast<double>(d->lat.samples);
    }
    return n > 0 ? total / n : 0;
  }
  if (r.read) total += r.read->iops;
  if (r.write) total += r.write->iops;
  return total;
}

reporting::WorkloadResult run_rounds(const WorkloadSpec& spec, const SteadyStateConfig& config,
                                     const RunWorkload& measure) {
  WorkloadSpec round_spec = spec;
  if (config.round_time_s > 0) round_spec.params.runtime_s = config.round_time_s;
  std::vector<double> series;
  std::vector<reporting::SteadyStateRound> rounds;
  std::vector<reporting::TimelinePoint> timeline;
  double elapsed = 0;
  reporting::WorkloadResult last;
  reporting::SteadyStateReport report;
  const unsigned bound = std::max(1u, config.max_rounds);
  for (unsigned round = 1; round <= bound; ++round) {
    WorkloadSpec named = round_spec;
    named.id = spec.id + " (round " + std::to_string(round) + ")";
    last = measure(named);
    for (auto p : last.timeline) {
      p.t_s += elapsed;
      timeline.push_back(p);
    }
    elapsed += last.elapsed_s;
    if (!last.errors.empty() || last.interrupted) break;  // a broken round says nothing
    series.push_back(tracked_value(last, config.metric));
    report = evaluate_window(series, config);
    rounds.push_back({series.back(), last.elapsed_s, report.steady});
    if (report.steady) break;
  }
  if (series.empty()) report = evaluate_window(series, config);
  report.rounds = std::move(rounds);
  report.round_time_s = round_spec.params.runtime_s;
  last.id = spec.id;
  last.timeline = std::move(timeline);
  last.elapsed_s = elapsed;
  last.steady = report.steady;
  last.steady_state = std::move(report);
  return last;
}

std::string describe(const reporting::SteadyStateReport& r) {
  using reporting::MetricKind;
  MetricKind kind = r.metric == "bw"         ? MetricKind::Bandwidth
                    : r.metric == "lat.mean" ? MetricKind::Latency
                                             : MetricKind::Iops;
  std::string mean =
      reporting::format_metric_value(kind, r.mean) + (kind == MetricKind::Iops ? " IOPS" : "");
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s after %zu round%s (window mean %s, range %.1f%% of mean, slope %.1f%% of "
                "mean)",
                r.steady ? "steady" : "not steady", r.rounds.size(),
                r.rounds.size() == 1 ? "" : "s", mean.c_str(), r.range_pct, r.slope_pct);
  return buf;
}

}  // namespace storqual::runner
