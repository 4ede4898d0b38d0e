// SPDX-License-Identifier: Apache-2.0
// The health of an ATA drive over a run, from its SMART readings (devices/ata_smart.hpp): rows for
// the reports, the changes between two readings, and what fails qualification
// (docs/identity-and-safety.md, "SATA health").
#pragma once

#include <string>
#include <vector>

#include "devices/ata_smart.hpp"
#include "devices/device_identity.hpp"

namespace storqual::devices {

// The counts whose growth means the medium is failing (the drive's own words for it).
inline constexpr std::uint8_t kAtaReallocated = 5, kAtaReportedUncorrect = 187, kAtaPending = 197,
                              kAtaOfflineUncorrectable = 198, kAtaUdmaCrc = 199;

// Rows: smart_status, power_on_hours, temperature_c, error_log_count, self_test_last,
// self_test_execution, checksum notes, then one row per attribute
// ("attr.005.Reallocated_Sector_Ct") with value, worst, threshold, flags (prefailure / old-age) and
// the decoded raw, "FAILING_NOW" or "In_the_past" as smartctl's WHEN_FAILED column says. `source`
// names where the rows came from.
[[nodiscard]] std::vector<IdentityRow> ata_health_rows(const AtaSmart& s,
                                                       const std::string& source);

// Changes from `before` to `after`: status, the failure counts (5, 187, 197, 198), attributes that
// started failing, the error log count, new self-test entries, UDMA CRC errors named as the cable
// or backplane, then always the temperature of both readings and the power-on hours.
[[nodiscard]] std::vector<std::string> ata_health_changes(const AtaSmart& before,
                                                          const AtaSmart& after);

// What fails qualification: in any reading (`before` included, labelled "before the run") a SMART
// status of failing or an attribute at or below its threshold; in `before`, pending (197) or
// offline-uncorrectable (198) sectors, which the drive cannot read; against `before`, a grown
// reallocated, reported-uncorrectable, pending or offline-uncorrectable count, or more failed
// self-tests in the log (one the drive ran by itself or another tool started). Counts are
// AtaSmart::sector_count: a raw that cannot be a count is never judged. One line per finding, at
// the first reading that showed it.
[[nodiscard]] std::vector<std::string> ata_health_failures(
    const AtaSmart& before, const std::vector<const AtaSmart*>& during,
    const std::vector<std::string>& during_labels);

// The line a passing verdict says for the last reading: what was checked and the counts.
[[nodiscard]] std::string ata_health_summary(const AtaSmart& after);

// A rising UDMA CRC count between `before` and `after`: "UDMA CRC errors 0 -> 3 (+3): the cable or
// backplane, not the drive"; empty when it did not rise.
[[nodiscard]] std::string ata_interface_note(const AtaSmart& before, const AtaSmart& after);

}  // namespace storqual::devices
