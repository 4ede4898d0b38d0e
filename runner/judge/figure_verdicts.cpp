// SPDX-License-Identifier: Apache-2.0
// The measured-only verdicts of a method's listed figures (see figure_verdicts.hpp).
#include "runner/judge/figure_verdicts.hpp"

#include "model/metric.hpp"
#include "model/quantity_format.hpp"

namespace storqual::runner {

void append_figure_verdicts(const reporting::WorkloadResult& r,
                            std::vector<reporting::ClaimVerdict>& out) {
  for (const auto& f : r.figures) {
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
