// SPDX-License-Identifier: Apache-2.0
// Names of verdict statuses as they appear in JSON, JUnit and the console.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "model/result.hpp"

namespace storqual::reporting {

[[nodiscard]] std::string_view to_string(VerdictStatus s) noexcept;  // "pass", "fail", ...
[[nodiscard]] std::optional<VerdictStatus> verdict_status_from_string(std::string_view s) noexcept;

// The name of a verdict in JUnit, tables and charts: "<workload> <metric>" for a claim (metric
// "measured" when empty), "<kind>: <workload> <metric>" for baseline and lot verdicts.
[[nodiscard]] std::string verdict_name(const ClaimVerdict& v);

}  // namespace storqual::reporting
