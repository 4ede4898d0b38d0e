// SPDX-License-Identifier: Apache-2.0
// The one identification path (see device_identification.hpp).
#include "runner/qualification/device_identification.hpp"

#include <exception>
#include <fstream>
#include <string_view>
#include <vector>

#include "runner/specs/spec_sheet.hpp"

namespace storqual::runner {
namespace fs = std::filesystem;
namespace {

// Captured pages of a run: smart-before.bin and smart-after.bin, or the SMART pages listed in
// smart-sequence.txt (one name a line: the snapshots and the thermal sampler take them in turn);
// ocp-before.bin and ocp-after.bin when present.
std::unique_ptr<devices::NvmeAdmin> captured_for_run(const fs::path& dir) {
  std::vector<std::string> smart{"smart-before.bin", "smart-after.bin"};
  if (std::ifstream list(dir / "smart-sequence.txt"); list) {
    smart.clear();
    for (std::string line; std::getline(list, line);)
      if (!line.empty()) smart.push_back(line);
  }
  auto admin = std::make_unique<devices::CapturedNvmeAdmin>(dir, smart);
  if (fs::exists(dir / "ocp-before.bin") && fs::exists(dir / "ocp-after.bin"))
    admin->set_ocp_pages(dir, {"ocp-before.bin", "ocp-after.bin"});
  return admin;
}

// Captured pages of a look: the default SMART page (smart-log.bin), ocp-smart-log.bin if present.
std::unique_ptr<devices::NvmeAdmin> captured_for_look(const fs::path& dir) {
  auto admin = std::make_unique<devices::CapturedNvmeAdmin>(dir);
  if (fs::exists(dir / "ocp-smart-log.bin")) admin->set_ocp_pages(dir, {"ocp-smart-log.bin"});
  return admin;
}

bool captured_ata(const fs::path& dir) {
  return fs::exists(dir / "ata-identify.bin");
}
bool captured_scsi(const fs::path& dir) {
  return fs::exists(dir / "scsi-log-00-before.bin");
}

// The readings of captured ATA or SCSI pages: named in <kind>-sequence.txt, or before and after.
std::vector<std::string> captured_readings(const fs::path& dir, const std::string& kind) {
  std::vector<std::string> readings{"before", "after"};
  if (std::ifstream list(dir / (kind + "-sequence.txt")); list) {
    readings.clear();
    for (std::string line; std::getline(list, line);)
      if (!line.empty()) readings.push_back(line);
  }
  return readings;
}

// Asks the ATA seam who the drive is; keeps it when SMART can be read, else says why not.
void probe_ata(DeviceIdentification& d) {
  const bool usb = d.identity.transport == devices::Transport::Usb;
  try {
    const devices::AtaIdentity id = devices::parse_ata_identify(d.ata->identify_device());
    // What the drive answers for a trimmed block (docs/measurement.md, "Reads of written data").
    d.identity.details.push_back({"deallocated_reads",
                                  !id.trim_supported     ? "no TRIM"
                                  : id.zeroes_after_trim ? "zeros after TRIM (ATA RZAT)"
                                  : id.deterministic_read_after_trim
                                      ? "deterministic after TRIM (ATA DRAT), not zeros"
                                      : "not deterministic after TRIM (no DRAT)",
                                  "ata:identify"});
    if (!id.smart_supported)
      d.health_gap = "health not readable: the drive does not support SMART";
    else if (!id.smart_enabled)
      d.health_gap =
          "health not readable: SMART is disabled on the drive (storqual does not enable it)";
  } catch (const devices::AtaPassThroughRefused& e) {
    d.health_gap =
        std::string(usb ? "health not readable through this bridge: " : "health not readable: ") +
        e.what();
  } catch (const std::exception& e) {
    d.health_gap = std::string("health not readable: ") + e.what();
  }
  if (!d.health_gap.empty()) d.ata.reset();
}

// A SCSI disk that refused ATA pass-through: its LOG SENSE pages, kept when page 00h answers.
// When LOG SENSE is refused, the gap also says what READ DEFECT DATA and REQUEST SENSE answered.
void probe_scsi(const devices::Sysfs& sysfs, const NvmeAccess& access, DeviceIdentification& d) {
  try {
    d.scsi = open_scsi_log(sysfs, d.identity, access);
    if (!d.scsi) return;
    // Live only: a captured source moves to its next reading on each page 00h.
    if (!access.captured) (void)d.scsi->log_sense(devices::kScsiSupportedPages);
    d.health_gap.clear();  // a SAS disk: no ATA expected
  } catch (const std::exception& e) {
    std::string also;
    if (d.scsi) {
      devices::ScsiHealth h;
      devices::read_scsi_defects_and_sense(*d.scsi, h);
      also = "; " + devices::scsi_defects_and_sense_text(h);
    }
    d.scsi.reset();
    d.health_gap +=
        std::string(d.health_gap.empty() ? "health not readable: " : "; ") + e.what() + also;
  }
}

}  // namespace

void open_ata_or_scsi(const devices::Sysfs& sysfs, const NvmeAccess& access,
                      DeviceIdentification& d) {
  try {
    d.ata = open_ata_admin(sysfs, d.identity, access);
  } catch (const std::exception& e) {
    d.health_gap = std::string("health not readable: ") + e.what();
  }
  if (d.ata) probe_ata(d);
  if (!d.ata) probe_scsi(sysfs, access, d);
}

std::unique_ptr<devices::AtaAdmin> open_ata_admin(const devices::Sysfs& sysfs,
                                                  const devices::DeviceIdentity& identity,
                                                  const NvmeAccess& access) {
  if (access.captured)
    return access.use == NvmeAccess::Use::Run && captured_ata(*access.captured)
               ? std::make_unique<devices::CapturedAtaAdmin>(
                     *access.captured, captured_readings(*access.captured, "ata"))
               : nullptr;
  const auto t = identity.transport;
  if (t != devices::Transport::Sata && t != devices::Transport::Usb &&
      t != devices::Transport::Scsi)
    return nullptr;
  if (identity.devnode.empty() || !sysfs.is_live()) return nullptr;
  return std::make_unique<devices::SgIoAtaAdmin>(identity.devnode);
}

std::unique_ptr<devices::ScsiLogSource> open_scsi_log(const devices::Sysfs& sysfs,
                                                      const devices::DeviceIdentity& identity,
                                                      const NvmeAccess& access) {
  if (access.captured)
    return access.use == NvmeAccess::Use::Run && captured_scsi(*access.captured)
               ? std::make_unique<devices::CapturedScsiLog>(
                     *access.captured, captured_readings(*access.captured, "scsi"))
               : nullptr;
  if (identity.transport != devices::Transport::Scsi || identity.devnode.empty() ||
      !sysfs.is_live())
    return nullptr;
  return std::make_unique<devices::SgIoScsiLog>(identity.devnode);
}

std::unique_ptr<devices::NvmeAdmin> open_nvme_admin(const devices::Sysfs& sysfs,
                                                    const devices::DeviceIdentity& identity,
                                                    const NvmeAccess& access) {
  if (access.captured && access.use == NvmeAccess::Use::Run)
    return captured_ata(*access.captured) || captured_scsi(*access.captured)
               ? nullptr
               : captured_for_run(*access.captured);
  if (identity.transport != devices::Transport::Nvme || identity.devnode.empty()) return nullptr;
  if (access.captured) return captured_for_look(*access.captured);
  if (sysfs.is_live()) return std::make_unique<devices::LibnvmeAdmin>(identity.devnode);
  return nullptr;
}

DeviceIdentification read_full_identity(const devices::Sysfs& sysfs, const std::string& device,
                                        const NvmeAccess& access) {
  DeviceIdentification d;
  d.identity = devices::read_identity(sysfs, device);
  try {
    d.admin = open_nvme_admin(sysfs, d.identity, access);
  } catch (const std::exception& e) {
    d.admin_error = e.what();
  }
  if (!d.admin) {
    open_ata_or_scsi(sysfs, access, d);
    return d;
  }
  try {
    auto ctrl = devices::parse_identify_controller(d.admin->identify_controller());
    auto ns = devices::parse_identify_namespace(d.admin->identify_namespace());
    devices::apply_nvme_identity(d.identity, ctrl, &ns);
    // A zoned namespace: its zone size and limits as the controller says them.
    if (d.identity.zones.zoned())
      devices::apply_zns_identity(
          d.identity, devices::parse_zns_identify_namespace(d.admin->zns_identify_namespace(), ns));
  } catch (const std::exception& e) {
    d.identify_error = e.what();
  }
  return d;
}

std::map<std::string, std::string> match_fields(const devices::DeviceIdentity& identity,
                                                devices::TargetKind kind) {
  return {{"model", identity.model.value},
          {"firmware", identity.firmware.value},
          {"vendor", identity.vendor.value},
          {"serial", identity.serial.value},
          {"transport", std::string(devices::to_string(identity.transport))},
          {"target", std::string(match_target(kind))}};
}

}  // namespace storqual::runner
