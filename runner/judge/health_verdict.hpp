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
#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {

// The verdict for the SMART readings of one run: kind "health", workload "device", metric
// "smart" (reports name it "health: device smart"). Fail with every finding of
// devices::health_failures in the message; Error when the reading after the run could not be
// taken although the one before could (the device stopped answering); Pass otherwise, the
// message saying what was checked. nullopt when there was no reading before (no health log:
// not NVMe, or not readable), which the run's notes already say.
// `limits` (the spec sheet's <health>) fail it too: each limit's first reading outside it, named
// with the limit and the sheet's file:line; a figure the drive does not report is named in the
// message, not failed. Without a reading before the run, limits make a skipped verdict saying
// they were not checked.
[[nodiscard]] std::optional<reporting::ClaimVerdict> health_verdict(
    const std::optional<devices::HealthSnapshot>& before,
    const std::vector<devices::HealthSnapshot>& during,
    const std::vector<std::string>& during_labels,
    const std::optional<devices::HealthSnapshot>& after,
    const std::vector<HealthLimit>& limits = {});

// The limits a reading breaks: "power_on_hours 1234 above the limit of at most 24 (at arrival;
// sheet.xml:9)"; `readings` with `labels` ("before the run", "after workload 1 of 3", ...), the
// first of them the reading before the run. Figures no reading reports go to `unreported`.
[[nodiscard]] std::vector<std::string> health_limit_violations(
    const std::vector<HealthLimit>& limits, const std::vector<devices::HealthSnapshot>& readings,
    const std::vector<std::string>& labels, std::vector<std::string>& unreported);

}  // namespace storqual::runner
