// SPDX-License-Identifier: Apache-2.0
// Names of verdict statuses as they appear in JSON, JUnit and the console.
#pragma once

#include <optional>
#include <string_view>

#include "reporting/result.hpp"

namespace storqual::reporting {

[[nodiscard]] std::string_view to_string(VerdictStatus s) noexcept;  // "pass", "fail", ...
[[nodiscard]] std::optional<VerdictStatus> verdict_status_from_string(std::string_view s) noexcept;

}  // namespace storqual::reporting
