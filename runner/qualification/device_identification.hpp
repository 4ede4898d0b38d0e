// SPDX-License-Identifier: Apache-2.0
// The one identification path of `storqual run` and `storqual identify`: a device's identity from
// sysfs and udev (devices::read_identity), completed by what its NVMe controller says through the
// admin seam (devices::NvmeAdmin: the live controller, or captured pages in tests), and the
// identity fields a spec sheet's <match> names. An ATA drive (SATA, or behind a SAT USB bridge) has
// its own seam for health (devices::AtaAdmin: SG_IO pass-through, or captured pages).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "devices/ata_smart.hpp"
#include "devices/device_identity.hpp"
#include "devices/nvme_admin.hpp"
#include "devices/scsi_log.hpp"
#include "devices/sysfs.hpp"

namespace storqual::runner {

// Who answers NVMe admin commands, and for what the captured pages were taken.
struct NvmeAccess {
  // A directory of captured pages instead of the live controller (the hidden --nvme-capture of
  // `run`, --nvme-pages of `identify`). Without it, only an NVMe namespace with a device node on
  // the live system (devices::Sysfs::is_live()) is asked, through libnvme.
  std::optional<std::filesystem::path> captured;
  // Run: the pages of a run, read in turn (smart-sequence.txt, one page name a line, or
  // smart-before.bin then smart-after.bin; ocp-before.bin and ocp-after.bin when both exist), and
  // they stand for the target whatever it is (a test qualifies a file or a loop device as if it
  // were a namespace). With ata-identify.bin there, the pages are an ATA drive's instead
  // (devices::CapturedAtaAdmin: ata-sequence.txt names the readings, one a line, or before and
  // after). Look: what a device reports now (identify-*.bin, smart-log.bin,
  // ocp-smart-log.bin when present), for NVMe namespaces only, as the live controller.
  enum class Use { Run, Look } use = Use::Look;
};

// The admin seam for a device of `identity`, or null when none applies (not NVMe, no device node,
// a captured sysfs tree). Throws (devices::NvmeError) when it cannot be opened.
[[nodiscard]] std::unique_ptr<devices::NvmeAdmin> open_nvme_admin(
    const devices::Sysfs& sysfs, const devices::DeviceIdentity& identity, const NvmeAccess& access);

// The ATA seam for a device of `identity`: SG_IO pass-through for a SATA, USB or SCSI disk on the
// live system, captured pages for a run; null when none applies. Throws devices::AtaError when
// the device node cannot be opened.
[[nodiscard]] std::unique_ptr<devices::AtaAdmin> open_ata_admin(
    const devices::Sysfs& sysfs, const devices::DeviceIdentity& identity, const NvmeAccess& access);

// The SCSI log seam: SG_IO LOG SENSE for a SCSI disk on the live system, captured pages for a run
// (scsi-log-<page>-<reading>.bin, readings in scsi-sequence.txt or before and after); null when
// none applies.
[[nodiscard]] std::unique_ptr<devices::ScsiLogSource> open_scsi_log(
    const devices::Sysfs& sysfs, const devices::DeviceIdentity& identity, const NvmeAccess& access);

struct DeviceIdentification {
  devices::DeviceIdentity identity;
  std::unique_ptr<devices::NvmeAdmin> admin;  // kept for health snapshots; null when none
  // An ATA drive's seam, kept for health snapshots once IDENTIFY DEVICE answered through it and
  // said SMART is supported; null otherwise, with the reason in health_gap ("health not readable
  // through this bridge: ..." for a USB bridge that refuses pass-through).
  std::unique_ptr<devices::AtaAdmin> ata;
  // A SCSI disk's LOG SENSE seam when ATA pass-through was refused and page 00h answered.
  std::unique_ptr<devices::ScsiLogSource> scsi;
  std::string health_gap;
  std::string admin_error;     // why the admin seam could not be opened ("" when it was, or none)
  std::string identify_error;  // why NVMe identify failed (the identity is then sysfs's alone)
};

// devices::read_identity of `device`, then NVMe identify (controller and namespace) applied to it
// (devices::apply_nvme_identity) when there is an admin seam; for a SATA, USB or SCSI disk, ATA
// IDENTIFY DEVICE through the ATA seam. Failures of either seam are reported in the result, not
// thrown.
[[nodiscard]] DeviceIdentification read_full_identity(const devices::Sysfs& sysfs,
                                                      const std::string& device,
                                                      const NvmeAccess& access);

// The health seam of a device that has no NVMe admin: ATA (probed with IDENTIFY DEVICE), else for
// a SCSI disk its log pages (probed with page 00h); why neither, in d.health_gap.
void open_ata_or_scsi(const devices::Sysfs& sysfs, const NvmeAccess& access,
                      DeviceIdentification& d);

// The identity fields a spec sheet's <match> names (kMatchFields, runner/specs/spec_sheet.hpp),
// with the target's kind (match_target), as SpecSheet::matches takes them.
[[nodiscard]] std::map<std::string, std::string> match_fields(
    const devices::DeviceIdentity& identity, devices::TargetKind kind);

}  // namespace storqual::runner
