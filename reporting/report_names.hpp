// SPDX-License-Identifier: Apache-2.0
// The one place for the names and paths of a run's reports: the default file names (`storqual run`
// writes them into --out DIR unless --json, --junit or --html names a file), and the per-device
// forms of a fleet ("storqual-result.json" -> "storqual-result-<label>.json").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace storqual::reporting {

inline constexpr std::string_view kResultFileName = "storqual-result.json";
inline constexpr std::string_view kJunitFileName = "storqual-junit.xml";
inline constexpr std::string_view kHtmlFileName = "storqual-report.html";
// The OCP Test & Validation output (reporting/ocp_diag.hpp), written only when asked for.
inline constexpr std::string_view kOcpDiagFileName = "storqual-ocp.jsonl";

// The reports a result is kept with, by where each goes ("" = not asked for): the result's own
// JSON, the JUnit XML, the HTML page and the OCP Test & Validation stream
// (archive/results_store.hpp keeps them).
struct ReportSet {
  std::string json, junit, html;
  bool junit_rich = false;  // the JUnit's rich form (JunitOptions::rich)
  std::string ocp_diag;     // one run's OCP JSONL (a fleet's merged reports have none)
};

// The reports of a run: each given path, else its default name in `dir`; the OCP stream only
// when asked for (`ocp_diag` set: its path; its default name in `dir` for "", in the directory
// when it names one).
[[nodiscard]] ReportSet default_reports(const std::string& dir,
                                        const std::optional<std::string>& json,
                                        const std::optional<std::string>& junit,
                                        const std::optional<std::string>& html,
                                        bool junit_rich = false,
                                        const std::optional<std::string>& ocp_diag = {});

// Where workload `workload` of a run keeps its checkpoint (a surface scan's, docs/burn-in.md):
// beside the run's JSON report, "out/storqual-result.json" + "scan" ->
// "out/storqual-result.scan.checkpoint.json" (a fleet's labelled report gives a labelled name).
[[nodiscard]] std::string checkpoint_path(const std::string& json_report,
                                          const std::string& workload);

// "out/storqual-result.json" + "loop3" -> "out/storqual-result-loop3.json".
[[nodiscard]] std::string path_with_label(const std::string& path, const std::string& label);
// Every path of `reports` with the label inserted (the reports of one device of a fleet).
[[nodiscard]] ReportSet with_label(ReportSet reports, const std::string& label);

}  // namespace storqual::reporting
