// SPDX-License-Identifier: Apache-2.0
// The qualification run (`storqual run`): identify the device -> choose its spec sheet and suite ->
// safety guard -> health before -> each workload with live progress -> health after -> verdicts ->
// reports (JSON, JUnit, HTML, console table). Every report is written atomically, also after an
// interruption (with what finished).
// The path of a run step by step, and where each step lives: docs/architecture.md.
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "archive/archive.hpp"
#include "archive/results_store.hpp"
#include "engines/fault_engine.hpp"
#include "model/result.hpp"

namespace storqual::runner {

struct QualificationOptions {
  std::string target;
  std::optional<std::string> spec_file;  // --spec FILE
  std::optional<std::string> specs_dir;  // --specs DIR: the sheet whose <match> fits the device
  std::optional<std::string> suite;      // --suite NAME|FILE (overrides the sheet's)
  // --measure-only: a run may judge nothing (no sheet in --specs matches the device); without it
  // that is a usage error. A run without --spec or --specs is measured only too; either way
  // RunResult::measure_only is set and every report says so.
  bool measure_only = false;
  // --strict: any deviation from the suite and sheet as written (RunResult::deviations), or a run
  // that judged no claim, makes the exit code 3 (incomplete) instead of 0.
  bool strict = false;
  // --accept-deviation KIND: a deviation that makes the verdict about something else (a sheet
  // whose <match> does not fit, memory judged against a drive's sheet, reads of never-written
  // blocks: deviations.hpp) leaves its claims judged, listed as accepted in every report.
  std::vector<std::string> accept_deviations;
  // Reads of written data (read_fill.hpp): false (--no-fill) skips the fill pass before a read
  // workload; its read claims are then inconclusive (an unwritten-reads deviation).
  bool fill = true;
  std::string out_dir = ".";  // default home of the three reports (reporting/report_names.hpp)
  std::optional<std::string> junit_path, html_path, json_path;
  // --ocp-diag [FILE]: the OCP Test & Validation stream (reporting/ocp_diag.hpp); "" its default
  // name in out_dir; unset: none.
  std::optional<std::string> ocp_diag_path;
  // Where the result and its reports are saved (archive/results_store.hpp); null: the files
  // (reporting::default_results_store()). A fleet (fleet_run.hpp) saves each target's run and
  // then the merged fleet through the same store, with --parallel from each target's thread at
  // once: a store given here must allow that.
  reporting::ResultsStore* store = nullptr;
  bool junit_rich = false;                // --junit-rich (reporting/junit_report.hpp)
  std::optional<std::string> ioengine;    // overrides every workload's
  double runtime_scale = 1.0;             // multiplies every runtime and ramp_time
  std::optional<std::uint64_t> size;      // overrides every workload's size (e.g. a small scratch)
  std::optional<std::string> early_stop;  // --early-stop RULE|off (runner/measure/early_stop.hpp)
  bool allow_destructive = false;
  bool force = false;
  bool allow_nvme_purge = false;  // a suite's purge="format|sanitize" may erase the namespace
  // --resume: a method that keeps a checkpoint beside the reports (the surface scan) continues
  // from it (MethodContext::checkpoint; docs/burn-in.md).
  bool resume = false;
  // A suite's <self-test> may start the drive's own self-test
  // (runner/methods/self_test/self_test.hpp); without it the testcase is skipped naming the flag.
  bool allow_self_test = false;
  std::string sysfs_root = "/sys";          // hidden: a captured tree
  std::optional<std::string> nvme_capture;  // hidden: replay captured NVMe pages (tests)
  // --thermal-interval: seconds between SMART readings during each workload (NVMe; 0 = off),
  // runner/methods/gates/thermal_watch.hpp
  double thermal_interval_s = 5;
  // hidden --inject-fault: every engine of the run wrapped in a FaultEngine
  // (runner/measure/fault_spec.hpp)
  std::optional<engines::FaultPlan> fault_plan;
  std::vector<std::string> suite_dirs;  // where standard suites are looked for (empty: default)
  std::FILE* console = stdout;
  // --baseline OLD.json: each workload is also compared with the same workload of this earlier
  // result ("baseline: <id> iops" verdicts, runner/judge/baseline.hpp); --regression: the allowed
  // drop.
  std::optional<reporting::RunResult> baseline;
  double regression_pct = 5;
  // Without --baseline: the unit's acceptance record by its serial (the archive's,
  // reporting::RecordingResultsStore::acceptance_of), against which a re-test gets its drift
  // verdicts (runner/judge/drift_verdict.hpp); empty or nullopt: none.
  std::function<std::optional<reporting::AcceptanceRecord>(const std::string& serial)> acceptance;
};

struct QualificationOutcome {
  reporting::RunResult result;
  std::string junit_path, html_path, json_path;  // where the reports went
  int exit_code = 0;
};

// Runs the whole qualification. Throws UsageError (exit 2) for bad files, a refused target or two
// matching sheets; I/O errors become error verdicts (exit 3) and the run goes on with the next
// workload, unless the device went away (ENXIO/ENODEV, or its path vanished): then the remaining
// workloads are reported as skipped with that reason. An interruption exits 128+signal.
[[nodiscard]] QualificationOutcome run_qualification(const QualificationOptions& options);

// The last step of a run, and of `storqual judge`: `out.result` saved through `store` (null: the
// files) at `reports` (their folder `out_dir` made), their paths set in `out`, then the console's
// verdict table and reports line.
void save_run_reports(const reporting::ReportSet& reports, const std::string& out_dir,
                      reporting::ResultsStore* store, std::FILE* console,
                      QualificationOutcome& out);

}  // namespace storqual::runner
