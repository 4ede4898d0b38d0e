// SPDX-License-Identifier: Apache-2.0
// The environment of a run (host, kernel, CPU, storqual version, command line, UTC times).
#pragma once

#include <string>

#include "model/result.hpp"

namespace storqual::runner {

// Fills everything but end_utc; start_utc is now.
[[nodiscard]] reporting::Environment capture_environment();
// ISO 8601 UTC with second precision, e.g. "2026-11-29T18:23:56Z".
[[nodiscard]] std::string utc_now();

}  // namespace storqual::runner
