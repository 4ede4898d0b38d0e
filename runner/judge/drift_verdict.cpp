// SPDX-License-Identifier: Apache-2.0
// Drift verdicts against the acceptance record (drift_verdict.hpp).
#include "runner/judge/drift_verdict.hpp"

#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "model/quantity_format.hpp"
#include "reporting/fleet_report.hpp"

namespace storqual::runner {
namespace {

using reporting::ClaimVerdict;
using reporting::VerdictStatus;
using Interval = std::pair<double, double>;

std::string signed_pct(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
  return buf;
}

std::string interval_text(const Interval& i, const std::string& unit) {
  return "[" + reporting::format_verdict_value(i.first, unit) + ", " +
         reporting::format_verdict_value(i.second, unit) + "]";
}

std::string health_value(const std::vector<reporting::FieldRow>& rows, const std::string& field) {
  for (const auto& r : rows)
    if (r.field == field) return r.value;
  return {};
}

// What changed on the unit since its acceptance: firmware and wear, "" when nothing is known.
std::string unit_changes(const reporting::AcceptanceRecord& a, const reporting::RunResult& run) {
  std::string out;
  const std::string firmware = reporting::identity_field(run, "firmware");
  if (firmware != a.firmware)
    out += "; firmware " + (a.firmware.empty() ? "-" : a.firmware) + " -> " +
           (firmware.empty() ? "-" : firmware);
  std::string wear = health_value(run.device.health_after, "percentage_used");
  if (wear.empty()) wear = health_value(run.device.health_before, "percentage_used");
  if (!a.wear.empty() && !wear.empty())
    out += "; wear (percentage_used) " + a.wear + "% -> " + wear + "%";
  return out;
}

// The run's own value and early-stop interval of `name` (iops or bw) on workload `w`.
std::pair<double, std::optional<Interval>> now_of(const reporting::WorkloadResult& w,
                                                  const std::string& name) {
  double value = 0;
  for (const auto* d : {w.read ? &*w.read : nullptr, w.write ? &*w.write : nullptr})
    if (d) value += name == "iops" ? d->iops : d->bw_bytes;
  std::optional<Interval> interval;
  if (w.early_stop && w.early_stop->metric == name && w.early_stop->samples > 0)
    interval = Interval{w.early_stop->mean - w.early_stop->half_width,
                        w.early_stop->mean + w.early_stop->half_width};
  return {value, interval};
}

void judge(ClaimVerdict& v, const Interval& now, const Interval& then) {
  const bool separate = now.second < then.first || then.second < now.first;
  const bool slower = separate && *v.measured < *v.claimed;
  v.status = slower ? VerdictStatus::Fail : VerdictStatus::Pass;
  v.message += "; intervals " + interval_text(then, v.unit) + " then and " +
               interval_text(now, v.unit) + " now: " +
               (slower     ? "separate, DRIFT (slower than at acceptance)"
                : separate ? "separate, faster than at acceptance"
                           : "overlap, no drift");
}

}  // namespace

std::vector<ClaimVerdict> drift_verdicts(const reporting::AcceptanceRecord& accepted,
                                         const reporting::RunResult& run) {
  std::vector<ClaimVerdict> out;
  const std::string against = "against its acceptance record " + std::to_string(accepted.record) +
                              " (" + accepted.start_utc + ", firmware " +
                              (accepted.firmware.empty() ? "-" : accepted.firmware) + ")";
  const std::string changes = unit_changes(accepted, run);
  for (const auto& w : run.workloads) {
    if (w.skipped || (!w.read && !w.write)) continue;
    // The figure its early-stop rule tracked (the interval is on that one), else IOPS.
    const std::string name = w.early_stop && w.early_stop->metric == "bw" ? "bw" : "iops";
    const reporting::AcceptanceRecord::Figure* then = nullptr;
    for (const auto& f : accepted.figures)
      if (f.workload == w.id && f.name == name) then = &f;
    // Only a comparison both intervals decide is a verdict: a workload in error carries its own
    // verdicts, and without an interval the printed drift says "not judged" (docs/archive.md).
    if (!then || !then->interval || !w.errors.empty() || w.interrupted) continue;
    const auto [value, interval] = now_of(w, name);
    if (!interval) continue;
    ClaimVerdict v;
    v.kind = reporting::VerdictKind::Baseline;
    v.workloads = {w.id};
    v.metric = name;
    v.unit = then->unit;
    v.time_s = w.elapsed_s;
    v.claimed = then->value;
    v.message = "drift " + against;
    v.measured = value;
    v.diff_pct = then->value > 0 ? (value - then->value) / then->value * 100 : 0;
    v.message += ": " + reporting::format_verdict_value(then->value, v.unit) + " -> " +
                 reporting::format_verdict_value(value, v.unit) + " (" + signed_pct(*v.diff_pct) +
                 ")";
    judge(v, *interval, *then->interval);
    v.message += changes;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace storqual::runner
