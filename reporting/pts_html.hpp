// SPDX-License-Identifier: Apache-2.0
// The HTML section of a SNIA PTS write saturation, demand intensity, cross-stimulus or host idle
// recovery test, in the style of the PTS report: the test and device header (device, capacity,
// firmware, purge method, preconditioning, steady-state convergence and its 5-round window), the
// plots the PTS names for the test (SVG, reporting/svg_chart.hpp) and the figures claims judge.
#pragma once

#include <string>

#include "model/result.hpp"

namespace storqual::reporting {

// `w.pts` must be set. Charts are <figure class="chart-block" data-chart="pts-...">.
[[nodiscard]] std::string render_pts_section(const RunResult& run, const WorkloadResult& w);

}  // namespace storqual::reporting
