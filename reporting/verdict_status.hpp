// SPDX-License-Identifier: Apache-2.0
// Names of verdict statuses, kinds and error causes as they appear in JSON, JUnit and the
// console; a verdict's workload ids as reports show them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace storqual::reporting {

[[nodiscard]] std::string_view to_string(VerdictStatus s) noexcept;  // "pass", "fail", ...
[[nodiscard]] std::optional<VerdictStatus> verdict_status_from_string(std::string_view s) noexcept;

[[nodiscard]] std::string_view to_string(VerdictKind k) noexcept;  // "claim", "baseline", ...
// "" is a claim too (the JSON of a claim carries no kind).
[[nodiscard]] std::optional<VerdictKind> verdict_kind_from_string(std::string_view s) noexcept;

// The JUnit <error> type: "workload-error", "interrupted".
[[nodiscard]] std::string_view to_string(ErrorCause c) noexcept;
[[nodiscard]] std::optional<ErrorCause> error_cause_from_string(std::string_view s) noexcept;

// A verdict's workload ids as reports and the JSON show them: joined with a space ("a b c").
[[nodiscard]] std::string workload_text(const ClaimVerdict& v);
// The same with the group's job a claim judges, as reports name the subject: "mixed job reader".
[[nodiscard]] std::string workload_job_text(const ClaimVerdict& v);
// The ids of a space-separated list ("a b c"; runs of white space are one separator).
[[nodiscard]] std::vector<std::string> split_ids(std::string_view list);

// The name of a verdict in JUnit, tables and charts: "<workload> <metric>" for a claim (metric
// "measured" when empty), "<kind>: <workload> <metric>" for baseline and lot verdicts.
[[nodiscard]] std::string verdict_name(const ClaimVerdict& v);
// The workload part of it: "<workload>" for a claim, "<kind>: <workload>" for the others.
[[nodiscard]] std::string verdict_subject(const ClaimVerdict& v);

}  // namespace storqual::reporting
