// SPDX-License-Identifier: Apache-2.0
// Device health before and after a run: an NVMe SMART / health log snapshot, or an ATA SMART
// reading (devices/ata_health.hpp), as ordered rows, and the changes between two snapshots that
// matter to a qualification (new media errors, new critical warning bits, temperature peak, wear;
// grown reallocated or pending counts and failing attributes for ATA).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "devices/ata_smart.hpp"
#include "devices/device_identity.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/ocp_smart_log.hpp"
#include "devices/scsi_log.hpp"

namespace storqual::devices {

struct HealthSnapshot {
  NvmeSmartLog smart;
  std::string source = "nvme:smart-log";
  // The OCP C0h extended log when the drive has one (devices/ocp_smart_log.hpp); otherwise why not
  // ("not an OCP log: GUID ...", the command's failure).
  std::optional<OcpSmartLog> ocp;
  std::string ocp_note;
  // An ATA drive's reading instead (source "ata:smart"); `smart` is then unused. Every function
  // below takes the ATA path when `before` (or the snapshot) has one.
  std::optional<AtaSmart> ata;
  // A SCSI disk's LOG SENSE pages instead (source "scsi:log-sense"; devices/scsi_health.hpp).
  std::optional<ScsiHealth> scsi;
};

// Reads the SMART log once (and C0h, whose absence is only noted). Throws NvmeError.
[[nodiscard]] HealthSnapshot take_health_snapshot(NvmeAdmin& admin);
// Reads ATA SMART once (devices/ata_smart.hpp read_ata_smart). Throws AtaError.
[[nodiscard]] HealthSnapshot take_health_snapshot(AtaAdmin& admin);
// Reads the SCSI log pages once (devices/scsi_log.hpp read_scsi_health). Throws ScsiError.
[[nodiscard]] HealthSnapshot take_health_snapshot(ScsiLogSource& source);

// Rows: critical_warning, temperature_c, available_spare_pct, available_spare_threshold_pct,
// percentage_used, data_units_read, data_read_bytes, data_units_written, data_written_bytes,
// power_on_hours, power_cycles, unsafe_shutdowns, media_errors, error_log_entries,
// warning_temp_minutes, critical_temp_minutes. Counters as exact decimal strings.
[[nodiscard]] std::vector<IdentityRow> health_rows(const HealthSnapshot& snapshot);

// Human-readable changes from `before` to `after`, most serious first: new critical warning bits,
// new media errors, new error log entries, wear (percentage used), time above the warning
// temperature, then always the temperature peak of the two readings and the data written.
[[nodiscard]] std::vector<std::string> health_changes(const HealthSnapshot& before,
                                                      const HealthSnapshot& after);

// What makes a device fail qualification on its own health, whatever it measured: against
// `before`, any of `during` (mid-run samples, then the reading after the run) showing a critical
// warning bit that was not set before, more media and data integrity errors than before, or an
// available spare below its threshold that was not below it before. One line per finding, the
// first reading that showed it named ("after workload 2 of 5", "after the run"); empty when the
// device stayed healthy. `during_labels` names each reading of `during` (same length). An ATA
// `before`: devices/ata_health.hpp ata_health_failures (a failing status or attribute in any
// reading, `before` included; grown reallocated, uncorrectable or pending counts). A SCSI
// `before`: devices/scsi_health.hpp scsi_health_failures.
[[nodiscard]] std::vector<std::string> health_failures(
    const HealthSnapshot& before, const std::vector<HealthSnapshot>& during,
    const std::vector<std::string>& during_labels);

// ---- figures a spec sheet may limit (docs/formats.md, "<health>") ----

// A figure of a health reading by name, when the drive's transport reports it:
//  power_on_hours         ATA attribute 9, NVMe power-on hours
//  temperature_c          ATA 194 (else 190), NVMe composite, SCSI page 0Dh
//  reallocated_sectors    ATA attribute 5 (raw)
//  pending_sectors        ATA 197
//  offline_uncorrectable  ATA 198
//  reported_uncorrectable ATA 187
//  crc_errors             ATA 199 (UDMA CRC)
//  media_errors           NVMe media and data integrity errors
//  percentage_used        NVMe
//  available_spare_pct    NVMe
//  uncorrected_errors     SCSI uncorrected read + write + verify errors
//  start_stop_cycles      SCSI page 0Eh
struct HealthFigure {
  std::string_view name;
  std::string_view what;  // in words, for messages
};
[[nodiscard]] std::span<const HealthFigure> health_figures() noexcept;
[[nodiscard]] const HealthFigure* find_health_figure(std::string_view name) noexcept;
// The value of `name` in `s`; nullopt when this drive does not report it (or the name is unknown).
[[nodiscard]] std::optional<double> health_figure(const HealthSnapshot& s, std::string_view name);

// ---- the unsafe-shutdown count a power cut must raise by one (docs/power-cut.md) ----

// The drive's count of shutdowns it was not told of, from the first counter it has: NVMe's SMART /
// health log "unsafe shutdowns" (with OCP C0h's incomplete shutdowns beside it where the drive has
// that log), else ATA attribute 192 (power-off retract / unsafe shutdown count), else 174
// (unexpected power loss count). A SCSI disk's log pages have no such counter.
struct UnsafeShutdownCount {
  std::optional<std::uint64_t> count;           // nullopt: not readable (`note` says why)
  std::string source;                           // "nvme:smart-log", "ata:192", "ata:174"
  std::optional<std::uint64_t> ocp_incomplete;  // OCP C0h bytes 112-115
  std::string note;
};
[[nodiscard]] UnsafeShutdownCount unsafe_shutdown_count(const HealthSnapshot& s);

}  // namespace storqual::devices
