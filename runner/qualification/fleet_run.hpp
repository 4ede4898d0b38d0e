// SPDX-License-Identifier: Apache-2.0
// Several targets in one `storqual run --target A --target B ... [--parallel]`: each device is
// qualified on its own (its own identity, spec sheet, safety guard and reports, with the target's
// label inserted into each report path: reporting::with_label, reporting/report_names.hpp), then
// one merged summary: a console table of the devices and the fleet reports (JUnit, HTML, JSON) at
// the paths a single run would have used, saved through the run's results store.
#pragma once

#include <string>
#include <vector>

#include "runner/qualification/qualification.hpp"

namespace storqual::runner {

// A short file-name-safe label per target: the last path component ("/dev/loop3" -> "loop3",
// "/mnt/scratch/" -> "scratch"), characters outside [A-Za-z0-9._-] replaced by '_', and "-2",
// "-3" appended to repeats.
[[nodiscard]] std::vector<std::string> target_labels(const std::vector<std::string>& targets);

// Runs every target (sequentially, or each in its own thread with `parallel`, their console output
// buffered and printed whole when each finishes), prints the device table and writes the merged
// reports (lot acceptance with `lot_tolerance_pct`, reporting/fleet_report.hpp). A target that
// fails to start (refused, no spec sheet, bad file) is reported, and is a unit in error in the
// merged reports, and the others still run. A lot outlier is a failed check: its unit's exit code
// in the table is 1 (if it was 0), as its JUnit testcase fails and the fleet page says FAIL.
// Returns the exit code of the whole: an interruption's 128+signal, else the worst of 3 (run-time
// error), 2 (usage or refusal), 1 (a claim failed or a unit is a lot outlier), 0; the last line
// printed, "RESULT: <fleet verdict>, exit N (...)", says both.
[[nodiscard]] int run_several_targets(const QualificationOptions& base,
                                      const std::vector<std::string>& targets, bool parallel,
                                      bool baseline_any_model, double lot_tolerance_pct);

// The pre-run identity check of a baseline (runner/judge/baseline.hpp) for one target: reads the
// target's identity from sysfs and throws UsageError when the baseline is of another model.
// Returns the relation text for the console.
std::string check_baseline_for_target(const QualificationOptions& options, bool any_model);

}  // namespace storqual::runner
