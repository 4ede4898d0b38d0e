// SPDX-License-Identifier: Apache-2.0
// JUnit XML for CI (Jenkins, GitLab, Azure, GitHub): one <testsuite> per RunResult (device), one
// <testcase> per claim verdict.
//
// Mapping (docs/reports.md has the full table):
//   pass -> plain <testcase>; fail -> <failure type="claim-not-met" message="..numbers..">;
//   error -> <error type="workload-error">; skipped -> <skipped message>; measured-only -> a
//   passing <testcase> named "<workload> <metric>" (or "<workload> measured") with the numbers as
//   properties. A workload that no verdict names also gets a passing "<workload> measured"
//   testcase, or an <error> one when it failed to run, so every workload appears in CI.
// Every string is stripped of characters XML 1.0 forbids; pugixml does the escaping.
#pragma once

#include <string>
#include <vector>

#include "reporting/result.hpp"

namespace storqual::reporting {

[[nodiscard]] std::string render_junit(const std::vector<RunResult>& runs);
// render_junit() then write_file_atomically().
void write_junit(const std::string& path, const std::vector<RunResult>& runs);

// "<model> <serial>" from the identity rows, falling back to the device name.
[[nodiscard]] std::string device_title(const RunResult& run);

}  // namespace storqual::reporting
