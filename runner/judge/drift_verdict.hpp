// SPDX-License-Identifier: Apache-2.0
// A re-test judged against the unit's acceptance record in the archive (docs/archive.md, "Drift"),
// when no --baseline FILE is given: one verdict of kind "baseline" per workload that both runs
// have, on the figure its early-stop rule tracks (iops, or bw with metric=bw; iops without a rule).
//
// Rule: with an early-stop confidence interval on both runs (--early-stop), the figure fails when
// the intervals separate and it is lower now ("drift: slower"); it passes when they overlap, or
// separate with the figure higher now. A workload without an interval on either run, or one that
// did not run cleanly (its own verdicts carry the error), gets no verdict: a bare percentage never
// fails a unit, nor adds a skipped testcase to every re-test; the drift printed after the archive
// record lists it as "not judged". Each message names the acceptance record and adds the
// firmware change and the wear (percentage_used then and now) when there are.
#pragma once

#include <vector>

#include "archive/archive.hpp"
#include "model/result.hpp"

namespace storqual::runner {

[[nodiscard]] std::vector<reporting::ClaimVerdict> drift_verdicts(
    const reporting::AcceptanceRecord& accepted, const reporting::RunResult& run);

}  // namespace storqual::runner
