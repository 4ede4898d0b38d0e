// SPDX-License-Identifier: Apache-2.0
// The health of a SCSI (SAS) disk over a run, from its LOG SENSE pages (devices/scsi_log.hpp):
// rows for the reports, the changes between two readings and what fails qualification
// (docs/identity-and-safety.md, "SCSI health").
#pragma once

#include <string>
#include <vector>

#include "devices/device_identity.hpp"
#include "devices/scsi_log.hpp"

namespace storqual::devices {

// Rows: failure_prediction (2Fh), temperature_c and reference, start-stop cycles, the error
// counters of each direction ("read.uncorrected", "write.corrected_total", ...), non-medium errors,
// grown_defects (READ DEFECT DATA), request_sense (its failure prediction), the newest self-test
// and the count of entries, and a note per page or command that could not be read.
[[nodiscard]] std::vector<IdentityRow> scsi_health_rows(const ScsiHealth& h,
                                                        const std::string& source);

// Changes: a failure prediction raised, new uncorrected and corrected errors per direction, new
// non-medium errors, grown defects, REQUEST SENSE's failure prediction raised, a new self-test,
// the temperature of both readings.
[[nodiscard]] std::vector<std::string> scsi_health_changes(const ScsiHealth& before,
                                                           const ScsiHealth& after);

// What fails qualification: a failure prediction (informational exceptions ASC not 0, or REQUEST
// SENSE's ASC 5Dh) in any reading, `before` included; a grown defect list that is not empty at
// arrival; against `before`, more uncorrected read, write or verify errors, a grown defect list
// that grew, or a new self-test that failed. One line per finding at the first reading that
// showed it.
[[nodiscard]] std::vector<std::string> scsi_health_failures(
    const ScsiHealth& before, const std::vector<const ScsiHealth*>& during,
    const std::vector<std::string>& during_labels);

// The line a passing verdict says: what was checked, with the uncorrected counts.
[[nodiscard]] std::string scsi_health_summary(const ScsiHealth& after);

}  // namespace storqual::devices
