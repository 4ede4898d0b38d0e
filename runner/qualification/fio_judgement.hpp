// SPDX-License-Identifier: Apache-2.0
// `storqual judge --fio-json OUT.json --spec SHEET` (docs/fio-files.md, "Judging fio's JSON"): the
// results fio measured (runner/specs/fio_json.hpp), matched to the sheet's suite, judged as a run
// is judged (runner/judge/verdict.hpp; what fio's output cannot decide is inconclusive,
// runner/judge/fio_verdicts.hpp) and reported as a run is, through the results store, marked
// "measured by fio-VERSION" with the JSON file's path and SHA-256. The device's identity comes from
// `--target` (the identification path of `run` and `identify`, reading only) or from a saved
// `storqual identify --json`; nothing is written to any device.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "archive/results_store.hpp"
#include "runner/qualification/qualification.hpp"

namespace storqual::runner {

struct FioJudgeOptions {
  std::string fio_json;                      // --fio-json FILE
  std::string spec_file;                     // --spec SHEET
  std::optional<std::string> target;         // --target PATH: identified, read only
  std::optional<std::string> identity_file;  // --identity FILE: `storqual identify --json`
  std::optional<std::string> host;           // --host: client/server output, that server's jobs
  std::optional<std::string> suite;          // --suite NAME|FILE (overrides the sheet's)
  bool strict = false;
  // --accept-deviation KIND: deviations.hpp (match, fio-target, null-engine)
  std::vector<std::string> accept_deviations;
  std::string out_dir = ".";
  std::optional<std::string> junit_path, html_path, json_path, ocp_diag_path;
  bool junit_rich = false;
  std::string sysfs_root = "/sys";
  std::vector<std::string> suite_dirs;  // where standard suites are looked for (empty: default)
  reporting::ResultsStore* store = nullptr;  // null: the files
  std::FILE* console = stdout;
};

// Throws FileError or UsageError (exit 2) for a bad fio JSON, sheet, suite, identity file or
// option; everything else is a verdict. The exit code is a run's (docs/formats.md).
[[nodiscard]] QualificationOutcome judge_fio_json(const FioJudgeOptions& options);

}  // namespace storqual::runner
