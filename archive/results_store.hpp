// SPDX-License-Identifier: Apache-2.0
// The results-store seam: where results are kept and read back. Every command that writes a result
// saves it through a store (`storqual run` for each target and for the fleet, `storqual report`,
// `storqual bench --json`) and every one that reads saved results loads them through one
// (`storqual report`, `--baseline`). A record is one run's result or a fleet's (its runs with their
// lot verdicts), kept with the reports asked for beside it (ReportSet, reporting/report_names.hpp).
//
// Today's store is FileResultsStore: a record is its files. A results archive (SQLite,
// PostgreSQL) is a second implementation of the same interface, registered in results_store.cpp
// (docs/architecture.md, "Where to add").
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"
#include "reporting/fleet_report.hpp"
#include "reporting/report_names.hpp"

namespace storqual::reporting {

class ResultsStore {
 public:
  virtual ~ResultsStore() = default;
  // The store's name in the registry ("files").
  [[nodiscard]] virtual std::string_view name() const noexcept = 0;
  // Keeps one run's result with its reports. Throws std::system_error when it cannot write; a
  // record is never left half-written under its final name.
  virtual void save(const RunResult& run, const ReportSet& reports) = 0;
  // Keeps a fleet (build_fleet: its runs in order, each with its lot verdicts) with the merged
  // reports: the fleet JSON, one JUnit <testsuite> per device and the fleet page.
  virtual void save(const FleetReport& fleet, const ReportSet& reports) = 0;
  // Every run kept under `source`, in order (the file store: a result file, or a fleet file's
  // runs). Throws ResultJsonError naming the source when it cannot be read.
  [[nodiscard]] virtual std::vector<RunResult> load(const std::string& source) = 0;
};

// Today's files. save() writes, each atomically (reporting/atomic_file.hpp) and only where
// ReportSet names a path, in this order: the result JSON (to_json_text, or fleet_to_json_text),
// the JUnit (render_junit with ReportSet::junit_rich), the HTML (render_html, or
// render_fleet_html) and a run's OCP Test & Validation stream (render_ocp_diag; a fleet's merged
// reports have none, each target's run has its own). load() reads a result file or a fleet file
// ({"fleet": [...]}; an element's errors are named "fleet[i]"). Stateless: saves to different paths
// may run at once (a parallel fleet).
class FileResultsStore final : public ResultsStore {
 public:
  [[nodiscard]] std::string_view name() const noexcept override { return "files"; }
  void save(const RunResult& run, const ReportSet& reports) override;
  void save(const FleetReport& fleet, const ReportSet& reports) override;
  [[nodiscard]] std::vector<RunResult> load(const std::string& source) override;
};

// The registry, shaped as the engines' (engines/engine.hpp): the stores this build has, one made
// by name (throws UsageError for an unknown one), and the one a command uses when none is chosen
// (the files; one instance for the process, thread-safe).
[[nodiscard]] std::span<const std::string_view> results_store_names() noexcept;
[[nodiscard]] std::unique_ptr<ResultsStore> make_results_store(std::string_view name);
[[nodiscard]] ResultsStore& default_results_store();

}  // namespace storqual::reporting
