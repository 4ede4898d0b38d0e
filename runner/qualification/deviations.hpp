// SPDX-License-Identifier: Apache-2.0
// Every way a run differs from its suite and spec sheet as written (reporting::Deviation,
// docs/reports.md "Deviations"): what the command line changed (runtimes, region, engine, early
// stop, another suite, faults), what the sheet does not fit, a target that measures memory or a
// cache rather than a device, reads of never-written blocks, and a busy or host-limited workload.
// Found once here, shown by every report. Two kinds (docs/reports.md, "Deviations"): one that
// weakens a verdict leaves it standing (`storqual run --strict` turns it into exit 3); one that
// makes the verdict about something else (`changes_subject`) makes the claims it touches
// INCONCLUSIVE (exit 3) unless `--accept-deviation KIND` names it.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devices/device_identity.hpp"
#include "devices/sysfs.hpp"
#include "model/result.hpp"
#include "runner/measure/workload.hpp"
#include "runner/specs/spec_sheet.hpp"
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
  bool drive_sheet = false;           // the sheet is a drive's (is_drive_sheet)
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

// Whether `sheet` is written for a particular drive: one of its <match> rules names a model,
// vendor, serial or firmware other than "*". A sheet that fits any device (model="*", or only
// target= or transport=) is not; memory judged against it weakens the verdict, while memory judged
// against a drive's sheet makes it about something else.
[[nodiscard]] bool is_drive_sheet(const SpecSheet& sheet);

// The kinds of deviation that make the verdict about something else: the only ones
// `--accept-deviation` takes (match, memory-target, unwritten-reads, fio-target, null-engine).
[[nodiscard]] const std::vector<std::string_view>& subject_deviation_kinds() noexcept;
// Throws UsageError naming --accept-deviation for a kind not in subject_deviation_kinds().
void check_accepted_kinds(const std::vector<std::string>& kinds);

// --accept-deviation KIND...: marks those deviations accepted (their claims stay judged); a kind
// that did not occur is said on `console` (may be null).
void accept_deviations(const std::vector<std::string>& kinds,
                       std::vector<reporting::Deviation>& deviations, std::FILE* console);

// Every claim verdict a not-accepted deviation that changes the subject touches (its workloads,
// or all; unwritten-reads only the claims on reads) becomes INCONCLUSIVE, the deviation as its
// reason, the measured and claimed values kept.
void apply_subject_deviations(const std::vector<reporting::Deviation>& deviations,
                              std::vector<reporting::ClaimVerdict>& verdicts);

}  // namespace storqual::runner
