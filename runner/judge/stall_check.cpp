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
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "the device stalled: 0 I/Os completed in %.2f s of measuring (no throughput or "
                "latency to judge)",
                r.elapsed_s);
  return std::string(buf);
}

}  // namespace storqual::runner
