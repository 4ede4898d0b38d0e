// SPDX-License-Identifier: Apache-2.0
// Claims on SNIA PTS figures and their measured-only verdicts (see pts_verdict.hpp).
#include "runner/judge/pts_verdict.hpp"

#include "reporting/metric.hpp"
#include "reporting/quantity_format.hpp"
#include "runner/methods/pts_tests.hpp"

namespace storqual::runner {

std::optional<double> pts_metric_value(const Metric& metric, const reporting::WorkloadResult& r,
                                       std::string& why) {
  if (!r.pts) {
    why = "workload '" + r.id + "' is not a SNIA PTS test, so it has no " + metric.name;
    return std::nullopt;
  }
  if (const auto* f = pts_figure(*r.pts, metric.pts)) return f->value;
  why = "the " + r.pts->test + " test '" + r.id + "' has no " + metric.name +
        (metric.pts.starts_with(r.pts->test + ".") ? " (not measured in this run)"
                                                   : " (it is another test's figure)");
  return std::nullopt;
}

void append_pts_figure_verdicts(const reporting::WorkloadResult& r,
                                std::vector<reporting::ClaimVerdict>& out) {
  for (const auto& f : r.pts->figures) {
    reporting::ClaimVerdict v;
    v.workloads = {r.id};
    v.metric = f.name;
    v.status = reporting::VerdictStatus::MeasuredOnly;
    v.measured = f.value;
    v.unit = f.unit;
    v.time_s = r.elapsed_s;
    v.higher_is_better = reporting::higher_is_better(f.name);
    const auto kind = reporting::metric_kind_of(f.name);
    v.message = "measured " +
                (kind ? reporting::format_metric_value(*kind, f.value)
                      : reporting::format_metric_value(f.value, f.unit)) +
                "; no claim";
    out.push_back(std::move(v));
  }
}

}  // namespace storqual::runner
