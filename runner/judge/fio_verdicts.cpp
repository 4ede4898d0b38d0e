// SPDX-License-Identifier: Apache-2.0
// What fio's JSON cannot decide (see fio_verdicts.hpp).
#include "runner/judge/fio_verdicts.hpp"

#include <cmath>
#include <cstdio>

namespace storqual::runner {
namespace {

bool listed(const reporting::LatencySummary& s, double p) {
  for (const auto& [q, ns] : s.percentiles)
    if (std::fabs(q - p) < 1e-9) return true;
  return false;
}

std::string percentile_name(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%g", p);
  return buf;
}

}  // namespace

std::string fio_undecidable(const Claim& c, const std::vector<reporting::WorkloadResult>& results) {
  const Metric& m = c.metric;
  if (m.kind != MetricKind::Latency || !m.percentile || m.figure) return "";
  for (const auto& id : c.workloads) {
    for (const auto& r : results) {
      if (r.id != id) continue;
      for (const auto* d : {&r.read, &r.write}) {
        if (!*d) continue;
        if (m.direction == MetricDirection::Read && d != &r.read) continue;
        if (m.direction == MetricDirection::Write && d != &r.write) continue;
        const bool clat = m.latency == LatencyKind::Clat;
        const reporting::LatencySummary& s = clat ? (*d)->clat : (*d)->lat;
        if (s.samples == 0 || listed(s, *m.percentile)) continue;
        if (s.percentiles.empty())
          return clat ? "fio reported no clat percentiles for workload '" + id +
                            "' (it ran with clat_percentiles=0)"
                      : "fio reported clat percentiles only for workload '" + id +
                            "', not lat percentiles (total latency, submission included): run "
                            "fio with --lat_percentiles=1, or claim clat." +
                            percentile_name(*m.percentile);
        return "fio's percentile list for workload '" + id + "' has no " +
               percentile_name(*m.percentile) +
               " and its JSON has no bins to compute it from: run fio with "
               "--output-format=json+ (or add it to --percentile_list)";
      }
    }
  }
  return "";
}

void mark_fio_undecidable(const SpecSheet& sheet,
                          const std::vector<reporting::WorkloadResult>& results,
                          std::vector<reporting::ClaimVerdict>& verdicts) {
  for (std::size_t i = 0; i < sheet.claims.size() && i < verdicts.size(); ++i) {
    reporting::ClaimVerdict& v = verdicts[i];
    if (v.status != reporting::VerdictStatus::Error) continue;
    const std::string why = fio_undecidable(sheet.claims[i], results);
    if (why.empty()) continue;
    v.status = reporting::VerdictStatus::Inconclusive;
    v.message = "inconclusive: " + why;
  }
}

}  // namespace storqual::runner
