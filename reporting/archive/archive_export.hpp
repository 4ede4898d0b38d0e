// SPDX-License-Identifier: Apache-2.0
// `storqual archive export`: the records of a query as a folder for the audit file
// (docs/archive.md, "Export"): each result JSON as stored, the report files, spec sheets and suites
// they name (those still on disk with the SHA-256 the record holds), the chain's links over the
// records, and a manifest `sha256sum -c` checks.
#pragma once

#include <string>
#include <vector>

#include "reporting/archive/archive.hpp"

namespace storqual::reporting {

struct ExportSummary {
  std::size_t records = 0;
  std::size_t files = 0;                // written, the manifest's lines
  std::vector<std::string> not_copied;  // "report /x/y.html: missing", "...: changed since"
};

// Writes into `dir` (made; an existing non-empty one is refused, UsageError):
//   results/<sha256>.json, reports/<record>/<file>, specs/<sha256>-<file>, chain.jsonl,
//   export.json (the query, the archive's head and whether its chain was whole), and
//   MANIFEST.sha256 ("<sha256>  <path>" per file). Throws ArchiveError, std::system_error.
ExportSummary export_records(Archive& archive, const std::vector<HistoryRow>& rows,
                             const std::string& dir);

}  // namespace storqual::reporting
