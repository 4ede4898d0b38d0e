// SPDX-License-Identifier: Apache-2.0
// Verdict status names.
#include "reporting/verdict_status.hpp"

#include <cctype>

#include "model/quantity_format.hpp"

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

std::string_view to_string(VerdictKind k) noexcept {
  switch (k) {
    case VerdictKind::Claim:
      return "claim";
    case VerdictKind::Baseline:
      return "baseline";
    case VerdictKind::Lot:
      return "lot";
    case VerdictKind::Health:
      return "health";
  }
  return "claim";
}

std::optional<VerdictKind> verdict_kind_from_string(std::string_view s) noexcept {
  if (s.empty()) return VerdictKind::Claim;
  for (auto k : {VerdictKind::Claim, VerdictKind::Baseline, VerdictKind::Lot, VerdictKind::Health})
    if (to_string(k) == s) return k;
  return std::nullopt;
}

std::string_view to_string(ErrorCause c) noexcept {
  switch (c) {
    case ErrorCause::WorkloadError:
      return "workload-error";
    case ErrorCause::Interrupted:
      return "interrupted";
  }
  return "workload-error";
}

std::optional<ErrorCause> error_cause_from_string(std::string_view s) noexcept {
  for (auto c : {ErrorCause::WorkloadError, ErrorCause::Interrupted})
    if (to_string(c) == s) return c;
  return std::nullopt;
}

std::string workload_text(const ClaimVerdict& v) {
  return join_text(v.workloads, " ");
}

std::string workload_job_text(const ClaimVerdict& v) {
  return workload_text(v) + (v.job.empty() ? "" : " job " + v.job);
}

std::vector<std::string> split_ids(std::string_view list) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && std::isspace(static_cast<unsigned char>(list[i]))) ++i;
    std::size_t j = i;
    while (j < list.size() && !std::isspace(static_cast<unsigned char>(list[j]))) ++j;
    if (j > i) out.emplace_back(list.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string verdict_subject(const ClaimVerdict& v) {
  if (v.kind == VerdictKind::Claim) return workload_job_text(v);
  return std::string(to_string(v.kind)) + ": " + workload_job_text(v);
}

std::string verdict_name(const ClaimVerdict& v) {
  return verdict_subject(v) + " " + (v.metric.empty() ? "measured" : v.metric);
}

}  // namespace storqual::reporting
