// SPDX-License-Identifier: Apache-2.0
// Getting a target ready for measurement: the safety guard's admission for a workload, and the
// layout of a fresh scratch file (written with random data, as fio lays out its files, since reads
// of never-written extents return zeros without touching the medium).
#pragma once

#include <cstdint>
#include <string>

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

}  // namespace storqual::runner
