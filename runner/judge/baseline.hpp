// SPDX-License-Identifier: Apache-2.0
// Baseline comparison (`storqual run --baseline OLD.json [--regression 5%]`): each workload of a
// run against the workload with the same id in an earlier result of the same device or model.
//
// Rule, per workload (one verdict of kind "baseline", named "baseline: <id> iops"): it fails when
// IOPS or bandwidth (read + write) dropped by more than the regression percentage, or the mean
// latency (lat, the I/O-weighted mean of read and write) rose by more than it. `measured` and
// `claimed` hold the IOPS now and then; the message carries all three comparisons. A workload that
// the baseline lacks, or that did not run cleanly there, is skipped; one that failed now is an
// error. Which earlier run qualifies: the same serial (same device), or the same model (a sibling
// unit); any other model is refused unless `any_model` (docs/fleet.md).
#pragma once

#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::runner {

// Throws UsageError naming both models when `baseline` is of another model than `model` (and
// `any_model` is false). `model` is the device's as reporting::unit_model() spells it (the identity
// model, or "<transport> (no model)" for loop, zram and virtio disks), and the baseline's is taken
// the same way. Returns how they relate: "same device (serial S)", "same model (M)", or "another
// model (M), accepted with --baseline-any-model".
std::string check_baseline_identity(const reporting::RunResult& baseline, const std::string& model,
                                    const std::string& serial, bool any_model);

// One "baseline" verdict per workload of `current`, in its order.
[[nodiscard]] std::vector<reporting::ClaimVerdict> compare_with_baseline(
    const reporting::RunResult& baseline, const reporting::RunResult& current,
    double regression_pct);

// Loads a baseline: a result file of one run. Throws UsageError naming the file when it cannot be
// read, is not a result, or is a fleet file of several runs (give the device's own result).
[[nodiscard]] reporting::RunResult load_baseline(const std::string& path);

}  // namespace storqual::runner
