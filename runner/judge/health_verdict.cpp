// SPDX-License-Identifier: Apache-2.0
// The device-health verdict of a run (see health_verdict.hpp).
#include "runner/judge/health_verdict.hpp"

#include "devices/ata_health.hpp"
#include "devices/scsi_health.hpp"
#include "model/quantity_format.hpp"

namespace storqual::runner {

namespace {

std::string number_text(double v) {
  return reporting::format_fixed(v, v == static_cast<double>(static_cast<long long>(v)) ? 0 : 1);
}

// The limit's words for a verdict: "at most 24", "at least 90", "between 5 and 60".
std::string limit_text(const HealthLimit& l) {
  if (l.max && l.min) return "between " + number_text(*l.min) + " and " + number_text(*l.max);
  return l.max ? "at most " + number_text(*l.max) : "at least " + number_text(*l.min);
}

}  // namespace

std::vector<std::string> health_limit_violations(
    const std::vector<HealthLimit>& limits, const std::vector<devices::HealthSnapshot>& readings,
    const std::vector<std::string>& labels, std::vector<std::string>& unreported) {
  std::vector<std::string> out;
  for (const HealthLimit& l : limits) {
    bool reported = false;
    const std::size_t n =
        l.arrival_only ? std::min<std::size_t>(1, readings.size()) : readings.size();
    for (std::size_t i = 0; i < n; ++i) {
      const auto v = devices::health_figure(readings[i], l.figure);
      if (!v) continue;
      reported = true;
      const bool above = l.max && *v > *l.max, below = l.min && *v < *l.min;
      if (!above && !below) continue;
      out.push_back(l.figure + " " + number_text(*v) + (above ? " above" : " below") +
                    " the spec sheet's limit of " + limit_text(l) + " (" +
                    (i < labels.size() ? labels[i] : std::string("a reading")) + "; " + l.where() +
                    ")");
      break;
    }
    if (!reported) unreported.push_back(l.figure + " (" + l.where() + ")");
  }
  return out;
}

std::optional<reporting::ClaimVerdict> health_verdict(
    const std::optional<devices::HealthSnapshot>& before,
    const std::vector<devices::HealthSnapshot>& during,
    const std::vector<std::string>& during_labels,
    const std::optional<devices::HealthSnapshot>& after, const std::vector<HealthLimit>& limits) {
  if (!before) {
    if (limits.empty()) return std::nullopt;
    reporting::ClaimVerdict skipped;
    skipped.kind = reporting::VerdictKind::Health;
    skipped.workloads = {"device"};
    skipped.metric = "smart";
    skipped.status = reporting::VerdictStatus::Skipped;
    skipped.message =
        "the spec sheet's health limits were not checked: the drive gave no health "
        "reading (the run's notes say why); first limit at " +
        limits.front().where();
    return skipped;
  }
  reporting::ClaimVerdict v;
  v.kind = reporting::VerdictKind::Health;
  v.workloads = {"device"};
  v.metric = "smart";
  v.unit = "findings";
  std::vector<devices::HealthSnapshot> readings = during;
  std::vector<std::string> labels = during_labels;
  labels.resize(readings.size());
  if (after) {
    readings.push_back(*after);
    labels.emplace_back("after the run");
  }
  auto failures = devices::health_failures(*before, readings, labels);
  std::vector<devices::HealthSnapshot> all{*before};
  all.insert(all.end(), readings.begin(), readings.end());
  std::vector<std::string> all_labels{"before the run"};
  all_labels.insert(all_labels.end(), labels.begin(), labels.end());
  std::vector<std::string> unreported;
  const auto outside = health_limit_violations(limits, all, all_labels, unreported);
  v.measured = static_cast<double>(failures.size() + outside.size());
  if (!failures.empty() || !outside.empty()) {
    v.status = reporting::VerdictStatus::Fail;
    if (!failures.empty())
      v.message = reporting::join_text(failures, "; ");  // each says when it was seen
    if (!outside.empty())
      v.message += (v.message.empty() ? "" : "; ") + std::string("outside the spec sheet's ") +
                   "health limits: " + reporting::join_text(outside, "; ");
    if (!unreported.empty())
      v.message += "; not reported by the drive: " + reporting::join_text(unreported, ", ");
    if (after && before->ata && after->ata)
      if (auto note = devices::ata_interface_note(*before->ata, *after->ata); !note.empty())
        v.message += "; " + note;
    return v;
  }
  if (!after) {
    v.status = reporting::VerdictStatus::Error;
    v.message = before->ata ? "ATA SMART could not be read after the run (it was before)"
                : before->scsi
                    ? "the SCSI log pages could not be read after the run (they were before)"
                    : "the SMART / health log could not be read after the run (it was before)";
    return v;
  }
  v.status = reporting::VerdictStatus::Pass;
  const std::string limits_note =
      (limits.empty()
           ? std::string()
           : "; within the spec sheet's " +
                 reporting::count_of(limits.size() - unreported.size(), "health limit")) +
      (unreported.empty()
           ? std::string()
           : "; not reported by the drive: " + reporting::join_text(unreported, ", "));
  if (before->ata && after->ata) {
    v.message = devices::ata_health_summary(*after->ata) + ", over " +
                std::to_string(readings.size()) + " reading(s) after the one before the run";
    if (auto note = devices::ata_interface_note(*before->ata, *after->ata); !note.empty())
      v.message += "; " + note;
    v.message += limits_note;
    return v;
  }
  if (before->scsi && after->scsi) {
    v.message = devices::scsi_health_summary(*after->scsi) + ", over " +
                std::to_string(readings.size()) + " reading(s) after the one before the run" +
                limits_note;
    return v;
  }
  v.message = "no new critical warning, no new media errors, available spare " +
              std::to_string(after->smart.available_spare) + "% (threshold " +
              std::to_string(after->smart.available_spare_threshold) + "%), over " +
              std::to_string(readings.size()) + " reading(s) after the one before the run" +
              limits_note;
  return v;
}

}  // namespace storqual::runner
