// SPDX-License-Identifier: Apache-2.0
// The verdict's side of the SNIA PTS tests (runner/methods/pts_tests.hpp, docs/pts.md): the
// measured value of a claim on a PTS figure (wsat.iops, dirth.max_iops, ...), and one
// measured-only verdict per figure of a PTS result, so that JUnit and the tables show each figure
// a claim could judge.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reporting/result.hpp"
#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {

// The figure `metric.pts` of `r`; empty with `why` set when `r` is not a PTS test, is another
// test, or did not measure it (e.g. no cliff in a WSAT that never dropped).
[[nodiscard]] std::optional<double> pts_metric_value(const Metric& metric,
                                                     const reporting::WorkloadResult& r,
                                                     std::string& why);

// One MeasuredOnly verdict per figure of r.pts (which must be set), appended to `out`.
void append_pts_figure_verdicts(const reporting::WorkloadResult& r,
                                std::vector<reporting::ClaimVerdict>& out);

}  // namespace storqual::runner
