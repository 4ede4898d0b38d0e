// SPDX-License-Identifier: Apache-2.0
// The measured-only verdicts of a method that lists its figures (MethodReport::lists_figures, a
// SNIA PTS test, docs/pts.md): one per figure it published, so that JUnit and the tables show each
// figure a claim could judge. (A claim on a figure reads it by name, as any named figure:
// runner/judge/verdict.cpp metric_value.)
#pragma once

#include <string>
#include <vector>

#include "model/result.hpp"

namespace storqual::runner {

// One MeasuredOnly verdict per figure of r.figures, appended to `out`.
void append_figure_verdicts(const reporting::WorkloadResult& r,
                            std::vector<reporting::ClaimVerdict>& out);

}  // namespace storqual::runner
