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

}  // namespace

std::unique_ptr<devices::NvmeAdmin> open_nvme_admin(const devices::Sysfs& sysfs,
                                                    const devices::DeviceIdentity& identity,
                                                    const NvmeAccess& access) {
  if (access.captured && access.use == NvmeAccess::Use::Run)
    return captured_for_run(*access.captured);
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
  if (!d.admin) return d;
  try {
    auto ctrl = devices::parse_identify_controller(d.admin->identify_controller());
    auto ns = devices::parse_identify_namespace(d.admin->identify_namespace());
    devices::apply_nvme_identity(d.identity, ctrl, &ns);
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
