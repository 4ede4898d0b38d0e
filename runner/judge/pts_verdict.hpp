// SPDX-License-Identifier: Apache-2.0
// The verdict's side of the SNIA PTS tests (runner/methods/pts_tests.hpp, docs/pts.md): one
// measured-only verdict per figure of a PTS result, so that JUnit and the tables show each figure
// a claim could judge. (A claim on a figure reads it by name, as any named figure:
// runner/judge/verdict.cpp metric_value.)
#pragma once

#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::runner {

// One MeasuredOnly verdict per figure of r.pts (which must be set), appended to `out`.
void append_pts_figure_verdicts(const reporting::WorkloadResult& r,
                                std::vector<reporting::ClaimVerdict>& out);

}  // namespace storqual::runner
