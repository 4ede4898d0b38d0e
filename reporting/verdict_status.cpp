// SPDX-License-Identifier: Apache-2.0
// Verdict status names.
#include "reporting/verdict_status.hpp"

namespace storqual::reporting {

std::string_view to_string(VerdictStatus s) noexcept {
  switch (s) {
    case VerdictStatus::Pass:
      return "pass";
    case VerdictStatus::Fail:
      return "fail";
    case VerdictStatus::Error:
      return "error";
    case VerdictStatus::Skipped:
      return "skipped";
    case VerdictStatus::MeasuredOnly:
      return "measured-only";
    case VerdictStatus::Inconclusive:
      return "inconclusive";
  }
  return "error";
}

std::optional<VerdictStatus> verdict_status_from_string(std::string_view s) noexcept {
  for (auto v : {VerdictStatus::Pass, VerdictStatus::Fail, VerdictStatus::Error,
                 VerdictStatus::Skipped, VerdictStatus::MeasuredOnly, VerdictStatus::Inconclusive})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

std::string verdict_name(const ClaimVerdict& v) {
  std::string name = v.kind.empty() || v.kind == "claim" ? std::string() : v.kind + ": ";
  return name + v.workload + " " + (v.metric.empty() ? "measured" : v.metric);
}

}  // namespace storqual::reporting
