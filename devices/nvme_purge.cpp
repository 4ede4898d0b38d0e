// SPDX-License-Identifier: Apache-2.0
// NVMe format/sanitize purge (see nvme_purge.hpp).
#include "devices/nvme_purge.hpp"

#include <endian.h>
#include <libnvme.h>

#include <cstdio>
#include <cstring>
#include <thread>

namespace storqual::devices {
namespace {

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

std::string seconds_text(std::chrono::steady_clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

std::string nvme_purge(NvmeAdmin& admin, NvmePurgeKind kind, const std::string& device,
                       const NvmePurgeTiming& timing) {
  const IdentifyPage page = admin.identify_controller();
  nvme_id_ctrl id{};
  static_assert(sizeof(id) == sizeof(page));
  std::memcpy(&id, page.data(), sizeof id);
  const std::uint16_t oacs = le16toh(id.oacs);
  const std::uint32_t sanicap = le32toh(id.sanicap);
  const auto start = std::chrono::steady_clock::now();

  if (kind == NvmePurgeKind::Format) {
    if (!(oacs & NVME_CTRL_OACS_FORMAT))
      throw NvmePurgeError("purge=format: the controller of " + device +
                           " does not support Format NVM (OACS " + hex(oacs) + ")");
    admin.format_namespace(NVME_FORMAT_SES_USER_DATA_ERASE);
    std::string scope = (id.fna & NVME_CTRL_FNA_FMT_ALL_NAMESPACES)
                            ? "every namespace of the controller (FNA: format applies to all)"
                            : "the whole namespace";
    return "purge: NVMe Format NVM with user-data erase of " + device + ", " + scope +
           ", not only the tested range (" +
           seconds_text(std::chrono::steady_clock::now() - start) + ")";
  }

  SanitizeAction action;
  std::string action_name;
  if (sanicap & NVME_CTRL_SANICAP_BES) {
    action = SanitizeAction::BlockErase;
    action_name = "block erase";
  } else if (sanicap & NVME_CTRL_SANICAP_CES) {
    action = SanitizeAction::CryptoErase;
    action_name = "crypto erase";
  } else if (sanicap & NVME_CTRL_SANICAP_OWS) {
    action = SanitizeAction::Overwrite;
    action_name = "overwrite";
  } else {
    throw NvmePurgeError("purge=sanitize: the controller of " + device +
                         " supports no sanitize action (SANICAP " + hex(sanicap) + ")");
  }
  admin.start_sanitize(action);
  auto sleep = timing.sleep ? timing.sleep
                            : [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  std::chrono::milliseconds waited{0};
  while (true) {
    const SanitizeLogPage log = admin.sanitize_log();
    const unsigned sstat = static_cast<unsigned>(log[2] | (log[3] << 8));
    const unsigned status = sstat & NVME_SANITIZE_SSTAT_STATUS_MASK;
    if (status == NVME_SANITIZE_SSTAT_STATUS_COMPLETE_SUCCESS ||
        status == NVME_SANITIZE_SSTAT_STATUS_ND_COMPLETE_SUCCESS)
      break;
    if (status == NVME_SANITIZE_SSTAT_STATUS_COMPLETED_FAILED)
      throw NvmePurgeError("purge=sanitize (" + action_name + ") of " + device +
                           " failed (sanitize status " + hex(sstat) + ")");
    if (status != NVME_SANITIZE_SSTAT_STATUS_IN_PROGESS &&
        waited >= std::chrono::milliseconds(10) * 1000)
      throw NvmePurgeError("purge=sanitize (" + action_name + ") of " + device +
                           ": the controller never reported it in progress or done (sanitize "
                           "status " +
                           hex(sstat) + ")");
    if (waited >= timing.limit)
      throw NvmePurgeError("purge=sanitize (" + action_name + ") of " + device +
                           " still running after " + std::to_string(timing.limit.count()) +
                           " s (progress " +
                           std::to_string((log[0] | (log[1] << 8)) * 100 / 65536) + "%)");
    sleep(timing.poll_interval);
    waited += timing.poll_interval;
  }
  return "purge: NVMe sanitize (" + action_name + ") of " + device +
         ", the whole NVM subsystem, not only the tested range (" +
         seconds_text(std::chrono::steady_clock::now() - start) + ")";
}

}  // namespace storqual::devices
