// SPDX-License-Identifier: Apache-2.0
// Getting a target ready for measurement: the safety guard's admission for a workload, and the
// layout of a fresh scratch file (written with random data, as fio lays out its files, since reads
// of never-written extents return zeros without touching the medium).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "devices/safety_guard.hpp"
#include "runner/measure/workload.hpp"

namespace storqual::runner {

struct TargetFlags {
  bool allow_destructive = false;
  bool force = false;
  std::string sysfs_root = "/sys";
};

// Admits `spec`'s target for its workload (throws devices::SafetyRefusal with the reason) and
// points spec.params.target/size at what was admitted. A fresh scratch file is laid out.
[[nodiscard]] devices::AdmittedTarget admit_target(WorkloadSpec& spec, const TargetFlags& flags);

// Writes `size` bytes of random data over [0, size) of `path` and drops them from the page cache.
void lay_out_file(const std::string& path, std::uint64_t size);

// Before workload `i` of `plan` on a block device, once it or an earlier one ran buffered
// (direct=0, any job of a group): writes back and drops the device's page cache (BLKFLSBUF), as
// the kernel does when the last of fio's jobs closes the device at the end of its group. storqual
// holds the device open for the whole run (the safety guard's claim), so without this a workload
// would start on the dirty and cached pages the one before left (docs/fio-files.md, "Side by
// side with fio"). Returns the seconds it took, nullopt when there was nothing to do; throws
// UnitError when the kernel refused (BLKFLSBUF needs CAP_SYS_ADMIN).
[[nodiscard]] std::optional<double> settle_page_cache(const std::vector<WorkloadSpec>& plan,
                                                      std::size_t i);

}  // namespace storqual::runner
