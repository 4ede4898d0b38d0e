// SPDX-License-Identifier: Apache-2.0
// Zero-completion detection (see stall_check.hpp).
#include "runner/judge/stall_check.hpp"

#include <cstdio>

namespace storqual::runner {

std::optional<std::string> stall_error(const reporting::WorkloadResult& r) {
  if (r.skipped || r.interrupted || !r.errors.empty()) return std::nullopt;
  if (r.method && !r.method->checked_for_stalls()) return std::nullopt;  // a check's own passes
  if (!r.read && !r.write) return std::nullopt;
  const std::uint64_t ios = (r.read ? r.read->ios : 0) + (r.write ? r.write->ios : 0);
  if (ios > 0) return std::nullopt;
  char buf[320];
  std::uint64_t submitted = 0;
  for (const auto n : r.io_depths.submitted) submitted += n;
  if (!r.io_depths.submitted.empty() && submitted == 0) {
    // Nothing went out: the job threads did not get the CPU before the time ran out. Still
    // nothing measured (an error), but the host's, not the device's.
    const double pressure = r.host_busy ? r.host_busy->cpu_pressure_pct : 0;
    std::snprintf(buf, sizeof buf,
                  "nothing measured: no I/O was submitted in %.2f s (the job threads did not get "
                  "to run before the workload's time ran out; CPU pressure %.0f%%): the host, not "
                  "the device",
                  r.elapsed_s, pressure);
    return std::string(buf);
  }
  std::snprintf(buf, sizeof buf,
                "the device stalled: 0 I/Os completed in %.2f s of measuring (no throughput or "
                "latency to judge)",
                r.elapsed_s);
  return std::string(buf);
}

}  // namespace storqual::runner
