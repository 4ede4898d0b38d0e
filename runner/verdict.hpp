// SPDX-License-Identifier: Apache-2.0
// Verdicts (docs/formats.md, "Verdicts"): each claim of a spec sheet judged against the measured
// results of its suite, plus one measured-only verdict per workload no claim names. Rules, in brief
// (the full text is in docs/formats.md):
//  - pass when measured is within tolerance on the right side: IOPS and bandwidth pass when
//    measured >= claimed * (1 - tol), latency when measured <= claimed * (1 + tol); exactly on the
//    bound passes. Otherwise fail.
//  - aggregate claims take the mean (or min/max) of the metric over their workloads.
//  - error when a workload of the claim has errors, was interrupted, lacks the direction or the
//    samples the metric needs, or did not run although nothing interrupted the run.
//  - skipped when the claim names a workload the suite lacks, or when the run was interrupted
//    before the workload started (a workload absent from the results while another one is marked
//    interrupted).
//  - every message carries both numbers, the difference in percent and the tolerance:
//    "measured 80.5k IOPS, 8.5% below the claimed 88k (tolerance 10%)".
#pragma once

#include <string>
#include <vector>

#include "reporting/result.hpp"
#include "runner/spec_sheet.hpp"
#include "runner/suite.hpp"

namespace storqual::runner {

// Claims in sheet order, then measured-only verdicts in suite order. Never throws on results
// (missing or odd results become error verdicts).
[[nodiscard]] std::vector<reporting::ClaimVerdict> judge(
    const SpecSheet& sheet, const Suite& suite,
    const std::vector<reporting::WorkloadResult>& results);

// Without a spec sheet (no sheet matched the device): measured-only (or error) per workload.
[[nodiscard]] std::vector<reporting::ClaimVerdict> judge_measured_only(
    const Suite& suite, const std::vector<reporting::WorkloadResult>& results);

// The value of `metric` in one result, in the metric's base unit; empty with `why` set when the
// result cannot give it (no such direction, no latency samples).
[[nodiscard]] std::optional<double> measure(const Metric& metric,
                                            const reporting::WorkloadResult& result,
                                            std::string& why);

// 0 when nothing failed or erred (skipped and measured-only do not count); 1 when a claim failed
// and nothing erred; 3 when any verdict is an error (an incomplete qualification outranks a failed
// claim). An interrupted run exits 130 regardless: that is the caller's decision, it knows about
// signals.
[[nodiscard]] int exit_code_for(const std::vector<reporting::ClaimVerdict>& verdicts);

// Human numbers as in verdict messages: 80500 IOPS -> "80.5k", 5.4e8 B/s -> "540 MB/s",
// 310000 ns -> "310 us" (three significant digits, trailing zeros dropped).
[[nodiscard]] std::string format_metric_value(MetricKind kind, double value);

}  // namespace storqual::runner
