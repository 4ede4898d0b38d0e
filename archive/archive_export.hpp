// SPDX-License-Identifier: Apache-2.0
// `storqual archive export`: the records of a query as a folder for the audit file
// (docs/archive.md, "Export"): each result JSON as stored, the report files, spec sheets and suites
// they name (those still on disk with the SHA-256 the record holds), the chain's links over the
// records, and a manifest `sha256sum -c` checks.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive.hpp"

namespace storqual::reporting {

struct ExportSummary {
  std::size_t records = 0;
  std::size_t files = 0;                // written, the manifest's lines
  std::vector<std::string> not_copied;  // "report /x/y.html: missing", "...: changed since"
};

// Writes into `dir` (made; an existing non-empty one is refused, UsageError):
//   results/<sha256>.json, reports/<record>/<file>, specs/<sha256>-<file>, chain.jsonl (each
//   link with its kind and recording time), export.json (the archive's head, whether its chain
//   was whole, and each record's tags and report files), MANIFEST.sha256 ("<sha256>  <path>" per
//   file) and, with `signer`, MANIFEST.sha256.sig (an Ed25519 signature of the manifest).
//   Throws ArchiveError, std::system_error.
ExportSummary export_records(Archive& archive, const std::vector<HistoryRow>& rows,
                             const std::string& dir, const Ed25519Key* signer = nullptr);

// What `storqual archive verify-export DIR` found: every file of the manifest present with its
// SHA-256 and no other file; chain.jsonl's links each the hash of the one before and its content;
// each record's content hash recomputed from its result, tags and report files as exported (the
// export proves its records without the archive); with `public_key`, the manifest's signature.
struct ExportCheck {
  std::size_t records = 0, files = 0;
  std::string head_hash;               // the last link's record_hash
  std::optional<std::string> problem;  // the first thing that does not hold
};
[[nodiscard]] ExportCheck verify_export(const std::string& dir, const Ed25519Key* public_key);

// What the manifest's signature is over: a fixed prefix and the manifest's SHA-256.
[[nodiscard]] std::string export_signature_message(std::string_view manifest_sha256);

}  // namespace storqual::reporting
