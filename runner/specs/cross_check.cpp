// SPDX-License-Identifier: Apache-2.0
// A spec sheet read against its suite (see cross_check.hpp).
#include "runner/specs/cross_check.hpp"

namespace storqual::runner {

std::vector<std::string> cross_check(const SpecSheet& sheet, const Suite& suite) {
  std::vector<std::string> warnings;
  for (const Claim& c : sheet.claims) {
    for (const std::string& id : c.workloads) {
      const SuiteWorkload* w = suite.find(id);
      if (!w) {
        warnings.push_back(c.location + ": claim on workload '" + id + "' which suite '" +
                           suite.name + "' lacks (it will be reported as skipped)");
        continue;
      }
      RwMode mode = parse_rw(w->spec.params.rw);
      if (c.metric.direction == MetricDirection::Read && !rw_reads(mode))
        warnings.push_back(c.location + ": metric '" + c.metric.name + "' on workload '" + id +
                           "', which does not read (rw=" + w->spec.params.rw +
                           "; the verdict will be an error)");
      if (c.metric.direction == MetricDirection::Write && !rw_writes(mode))
        warnings.push_back(c.location + ": metric '" + c.metric.name + "' on workload '" + id +
                           "', which does not write (rw=" + w->spec.params.rw +
                           "; the verdict will be an error)");
    }
  }
  return warnings;
}

}  // namespace storqual::runner
