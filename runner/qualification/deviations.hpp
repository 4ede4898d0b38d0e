// SPDX-License-Identifier: Apache-2.0
// Every way a run differs from its suite and spec sheet as written (reporting::Deviation,
// docs/reports.md "Deviations"): what the command line changed (runtimes, region, engine, early
// stop, another suite, faults), what the sheet does not fit, a target that measures memory or a
// cache rather than a device, and a busy or host-limited workload. Found once here, shown by every
// report; `storqual run --strict` turns any of them into exit 3.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "devices/device_identity.hpp"
#include "devices/sysfs.hpp"
#include "model/result.hpp"
#include "runner/measure/workload.hpp"
#include "runner/specs/suite.hpp"

namespace storqual::runner {

// What the command line asked to change, as given.
struct RunOverrides {
  double runtime_scale = 1.0;
  std::optional<std::uint64_t> size;
  std::optional<std::string> ioengine;
  std::optional<std::string> early_stop;
  std::optional<std::string> suite;   // --suite, when the run also has a sheet naming another
  std::string sheet_suite;            // the suite the sheet names ("" without a sheet)
  bool sheet_does_not_match = false;  // --spec given and its <match> does not fit
  std::string identity_summary;       // "model 'X', transport 'loop'" for that message
  bool faults_injected = false;
};

// Before measuring: the command line's changes to the suite (`suite` as written, `plan` as it will
// run), the sheet, and whether the target measures memory or a cache.
[[nodiscard]] std::vector<reporting::Deviation> planned_deviations(
    const Suite& suite, const std::vector<WorkloadSpec>& plan, const RunOverrides& overrides,
    const devices::DeviceIdentity& identity, const devices::ResolvedTarget& resolved);

// After measuring: workloads measured on a busy host or limited by the host.
[[nodiscard]] std::vector<reporting::Deviation> measured_deviations(
    const std::vector<reporting::WorkloadResult>& results);

// Why the target answers from memory or a cache rather than a device, or nullopt: zram, a RAM
// disk, a loop device without direct I/O (its backing file sits in the page cache), a file on
// tmpfs or ramfs. `path` is the target as given (statfs of its filesystem).
[[nodiscard]] std::optional<std::string> memory_backing(const devices::DeviceIdentity& identity,
                                                        const devices::ResolvedTarget& resolved,
                                                        const std::string& path);

}  // namespace storqual::runner
