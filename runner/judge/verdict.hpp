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
//  - inconclusive when a percentile claim has fewer than 10 samples beyond its percentile
//    (runner/measure/tail_samples.hpp); the message gives the I/Os needed and the runtime for them.
//  - skipped when the claim names a workload the suite lacks, or when the run was interrupted
//    before the workload started (a workload absent from the results while another one is marked
//    interrupted).
//  - every message carries both numbers, the difference in percent and the tolerance:
//    "measured 80.5k IOPS, 8.5% below the claimed 88k (tolerance 10%)".
#pragma once

#include <string>
#include <vector>

#include "model/result.hpp"
#include "runner/specs/spec_sheet.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

// What a verdict needs beyond the results: the device under test.
struct JudgeContext {
  // The device's capacity in bytes (identity capacity_bytes): per-TB claims scale with it (decimal
  // TB); a per-TB claim without it is an error verdict.
  std::optional<double> capacity_bytes;
  // The run's write amplification and endurance (runner/methods/gates/wear.hpp), for waf and
  // endurance.dwpd claims; null without NVMe health. warranty_years: the sheet's (endurance.dwpd
  // needs it).
  const reporting::WearReport* wear = nullptr;
  std::optional<double> warranty_years;
};

// Claims in sheet order, then measured-only verdicts in suite order. Never throws on results
// (missing or odd results become error verdicts).
[[nodiscard]] std::vector<reporting::ClaimVerdict> judge(
    const SpecSheet& sheet, const Suite& suite,
    const std::vector<reporting::WorkloadResult>& results, const JudgeContext& context);
// The same without a device context (per-TB claims are then errors).
[[nodiscard]] std::vector<reporting::ClaimVerdict> judge(
    const SpecSheet& sheet, const Suite& suite,
    const std::vector<reporting::WorkloadResult>& results);

// Without a spec sheet (no sheet matched the device): measured-only (or error) per workload.
[[nodiscard]] std::vector<reporting::ClaimVerdict> judge_measured_only(
    const Suite& suite, const std::vector<reporting::WorkloadResult>& results);

// The value of `metric` in one result, in the metric's base unit; empty with `why` set when the
// result cannot give it (no such direction, no latency samples).
[[nodiscard]] std::optional<double> metric_value(const Metric& metric,
                                                 const reporting::WorkloadResult& result,
                                                 std::string& why);

// 0 when nothing failed or erred (measured-only verdicts, and skipped ones that are no claim of the
// sheet, do not count); 1 when a claim failed and nothing erred; 3 when any verdict is an error or
// inconclusive, or a claim of the sheet was skipped (an incomplete qualification outranks a failed
// claim). An
// interrupted run exits 130 regardless: that is the caller's decision, it knows about signals.
[[nodiscard]] int exit_code_for(const std::vector<reporting::ClaimVerdict>& verdicts);

// Human numbers as in verdict messages (model/metric.hpp).
using reporting::format_metric_value;

}  // namespace storqual::runner
