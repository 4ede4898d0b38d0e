// SPDX-License-Identifier: Apache-2.0
// The run's device-health testcase: a device that raises a critical warning, reports new media
// errors or drops below its spare threshold while being qualified has failed qualification,
// whatever its claims measured (docs/identity-and-safety.md, "NVMe health").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "devices/health.hpp"
#include "model/result.hpp"

namespace storqual::runner {

// The verdict for the SMART readings of one run: kind "health", workload "device", metric
// "smart" (reports name it "health: device smart"). Fail with every finding of
// devices::health_failures in the message; Error when the reading after the run could not be
// taken although the one before could (the device stopped answering); Pass otherwise, the
// message saying what was checked. nullopt when there was no reading before (no health log:
// not NVMe, or not readable), which the run's notes already say.
[[nodiscard]] std::optional<reporting::ClaimVerdict> health_verdict(
    const std::optional<devices::HealthSnapshot>& before,
    const std::vector<devices::HealthSnapshot>& during,
    const std::vector<std::string>& during_labels,
    const std::optional<devices::HealthSnapshot>& after);

}  // namespace storqual::runner
