// SPDX-License-Identifier: Apache-2.0
// Latency-bounded IOPS (the iodepth-sweep method, docs/formats.md "<latency-search>"): the
// highest IOPS whose latency statistic (mean, or a reported percentile, of fio's `lat`,
// submission to completion, or of `clat`, completion only) stays at or under a limit. By default
// every iodepth 1, 2, 4 ... max_iodepth runs and the answer is the passing depth with the most
// IOPS, wherever it lies (a curve need not be monotone: a depth over the limit can be followed by
// one within it). With `bisect` the sweep stops at the first depth over the limit and bisects
// between it and the last good one. Every step is a full run of the workload at that depth; all
// steps form the IOPS/latency curve.
#pragma once

#include <functional>
#include <vector>

#include "reporting/result.hpp"
#include "runner/suite.hpp"
#include "runner/workload.hpp"

namespace storqual::runner {

struct LatencySearchOutcome {
  reporting::WorkloadResult best;  // the run at the chosen depth (kind "latency-search")
  std::vector<reporting::LatencyCurvePoint> curve;  // every step, sorted by iodepth
  bool limit_met = false;  // false: no depth is within the limit (best is the iodepth-1 run)
};

using MeasureFunction = std::function<reporting::WorkloadResult(const WorkloadSpec&)>;

// The statistic the search compares with the limit, from a result: the worse of the read and
// write sides. Returns a negative value when the result has no samples.
[[nodiscard]] double latency_statistic(const reporting::WorkloadResult& r, const LatencySearch& s);

// Runs the search with `measure` (run_workload in production, a fake in tests). Stops early and
// returns what it has when a step comes back with errors or interrupted.
[[nodiscard]] LatencySearchOutcome search_latency_bound(const WorkloadSpec& base,
                                                        const LatencySearch& search,
                                                        const MeasureFunction& measure);

}  // namespace storqual::runner
