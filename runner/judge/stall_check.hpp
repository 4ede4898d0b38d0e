// SPDX-License-Identifier: Apache-2.0
// A stalled device is an error of the run, not a failed claim: a workload that ran its course
// without one I/O completing measured nothing about the device's speed (docs/robustness.md).
#pragma once

#include <optional>
#include <string>

#include "model/result.hpp"

namespace storqual::runner {

// The error to record for `r` when it completed no I/O at all (read and write together) although
// it ran and reported nothing wrong; nullopt otherwise (skipped, interrupted, already in error,
// a capacity check, or I/O completed). I/Os still stuck past the end are already errors of the
// job itself ("... still in flight 30s after the end", or io_timeout).
[[nodiscard]] std::optional<std::string> stall_error(const reporting::WorkloadResult& r);

}  // namespace storqual::runner
