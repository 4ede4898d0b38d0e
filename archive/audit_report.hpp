// SPDX-License-Identifier: Apache-2.0
// `storqual audit` (docs/archive.md, "Audit"): the units of a selection (a purchase order's tag, a
// lot, a model) with each one's latest verdict and the SHA-256 of every file that proves it, a
// summary per model, each model's IOPS by lot over time (the selection against the model's other
// runs in the archive) and the archive's chain status, as one self-contained printable HTML page
// (the run report's style and Content-Security-Policy) and as CSV (RFC 4180).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive.hpp"

namespace storqual::reporting {

struct AuditUnit {
  HistoryRow run;                   // the unit's latest run in the selection
  int runs = 0;                     // its runs in the selection
  RecordHealth health;              // of that run
  std::vector<ArchivedFile> files;  // the report files that run's record lists
};

struct AuditModelRuns {
  std::string model;
  std::vector<HistoryRow> runs;  // every run of the model in the archive, oldest first
};

struct AuditPage {
  std::string selection;  // the options that chose it ("--tag po=4711")
  std::string archive;    // where (ArchiveLocation::display())
  std::string generated_utc, tool_version;
  ChainCheck chain;                    // archive verify, over the whole chain
  std::vector<AuditUnit> units;        // by model, then serial (a run without serial: its own)
  std::vector<AuditModelRuns> models;  // each model of the units
  std::set<std::int64_t> selected;     // every record of the selection
};

// Serials in the order a person reads them: runs of digits compared as numbers, the rest as text
// ("B-7" before "B-10", "B-010" after "B-9"; of two serials equal but for leading zeros, the one
// with fewer first).
[[nodiscard]] bool serial_before(std::string_view a, std::string_view b);

// The selection `q` read from `archive` (each unit's latest run, its health and files, every run
// of each model) and the chain walked from its first record; units by model, then serial_before.
[[nodiscard]] AuditPage collect_audit(Archive& archive, const HistoryQuery& q,
                                      std::string selection, std::string tool_version);

// "pass (wear 3%)", "fail: MESSAGE", "read, not judged", "not read".
[[nodiscard]] std::string audit_health_text(const RecordHealth& h);

[[nodiscard]] std::string format_audit_html(const AuditPage& page);
// One line per unit: serial, model, verdict, exit_code, health, start_utc, host, tool_version,
// firmware, runs, result_sha256, json_sha256, junit_sha256, html_sha256, ocp_diag_sha256, tags.
[[nodiscard]] std::string format_audit_csv(const AuditPage& page);

}  // namespace storqual::reporting
