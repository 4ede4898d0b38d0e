// SPDX-License-Identifier: Apache-2.0
// The device-health verdict of a run (see health_verdict.hpp).
#include "runner/judge/health_verdict.hpp"

#include "devices/ata_health.hpp"
#include "devices/scsi_health.hpp"

namespace storqual::runner {

std::optional<reporting::ClaimVerdict> health_verdict(
    const std::optional<devices::HealthSnapshot>& before,
    const std::vector<devices::HealthSnapshot>& during,
    const std::vector<std::string>& during_labels,
    const std::optional<devices::HealthSnapshot>& after) {
  if (!before) return std::nullopt;
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
  v.measured = static_cast<double>(failures.size());
  if (!failures.empty()) {
    v.status = reporting::VerdictStatus::Fail;
    v.message.clear();  // the findings, each saying when it was seen
    for (std::size_t i = 0; i < failures.size(); ++i) v.message += (i ? "; " : "") + failures[i];
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
  if (before->ata && after->ata) {
    v.message = devices::ata_health_summary(*after->ata) + ", over " +
                std::to_string(readings.size()) + " reading(s) after the one before the run";
    if (auto note = devices::ata_interface_note(*before->ata, *after->ata); !note.empty())
      v.message += "; " + note;
    return v;
  }
  if (before->scsi && after->scsi) {
    v.message = devices::scsi_health_summary(*after->scsi) + ", over " +
                std::to_string(readings.size()) + " reading(s) after the one before the run";
    return v;
  }
  v.message = "no new critical warning, no new media errors, available spare " +
              std::to_string(after->smart.available_spare) + "% (threshold " +
              std::to_string(after->smart.available_spare_threshold) + "%), over " +
              std::to_string(readings.size()) + " reading(s) after the one before the run";
  return v;
}

}  // namespace storqual::runner
