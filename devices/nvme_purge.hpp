// SPDX-License-Identifier: Apache-2.0
// NVMe purge before a measurement (SNIA PTS "purge": the device back to its fresh state): Format
// NVM with user-data erase of the namespace, or a sanitize of the whole NVM subsystem, through the
// NvmeAdmin seam. Both erase far more than a tested range, so the caller asks only behind an
// explicit flag (--allow-nvme-purge); this file checks that the controller supports the command
// (identify controller OACS, SANICAP), issues it, waits for a sanitize to finish (sanitize status
// log) and returns the line the report shows. Failures throw NvmePurgeError with the reason.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "devices/nvme_admin.hpp"
#include "model/errors.hpp"

namespace storqual::devices {

enum class NvmePurgeKind { Format, Sanitize };

class NvmePurgeError : public storqual::Error {
 public:
  explicit NvmePurgeError(const std::string& what) : Error(what, kExitRuntime) {}
};

struct NvmePurgeTiming {
  std::chrono::milliseconds poll_interval{1000};  // between sanitize status reads
  std::chrono::seconds limit{4 * 3600};           // a sanitize still running after this: error
  // Waits `d`; tests pass one that does not sleep.
  std::function<void(std::chrono::milliseconds d)> sleep;
};

// Purges as `kind` says through `admin`; `device` names the device in the report line.
[[nodiscard]] std::string nvme_purge(NvmeAdmin& admin, NvmePurgeKind kind,
                                     const std::string& device, const NvmePurgeTiming& timing = {});

}  // namespace storqual::devices
