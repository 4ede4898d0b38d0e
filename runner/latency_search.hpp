// SPDX-License-Identifier: Apache-2.0
// Latency-bounded IOPS (the iodepth-sweep method, docs/formats.md "<latency-search>"): the highest IOPS whose latency statistic
// (mean, or a reported percentile, of fio's `lat`: submission to completion) stays at or under a
// limit. Sweeps iodepth 1, 2, 4 ... max_iodepth until the limit is crossed, then bisects between
// the last good and the first bad depth. Every step is a full run of the workload at that depth;
// all steps form the IOPS/latency curve.
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
  bool limit_met = false;  // false: even iodepth 1 is over the limit (best is the iodepth-1 run)
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
