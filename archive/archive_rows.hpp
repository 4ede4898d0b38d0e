// SPDX-License-Identifier: Apache-2.0
// A record's rows (archive_schema.hpp's tables) derived from a run, and the canonical text that
// its hash covers (docs/archive.md, "The chain"). The writer hashes the rows it inserts; `archive
// verify` hashes the rows it reads back: the same function, so that any edited, added or removed
// row changes the hash.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive.hpp"
#include "archive/sql_connection.hpp"
#include "model/result.hpp"

namespace storqual::reporting {

// Each table's rows of one record, by table name, each row (idx, columns...) without record_seq.
using RecordRows = std::map<std::string, std::vector<SqlRow>, std::less<>>;

// The record row's own fields that the hash covers.
struct RecordHead {
  std::int64_t seq = 0;
  std::string kind;  // "run"
  std::string result_sha256;
  std::string recorded_utc;
};

// Every table's rows for `run` (empty tables omitted): the rows `record` inserts.
[[nodiscard]] RecordRows derive_record_rows(const RunResult& run,
                                            const std::vector<ArchivedFile>& files,
                                            const std::vector<ArchiveTag>& tags);

// The canonical text of a record (a JSON array; doubles in their shortest exact spelling, so that
// SQLite and PostgreSQL give the same text) and the SHA-256 chain over it.
[[nodiscard]] std::string canonical_record(const RecordHead& head, const RecordRows& rows);
[[nodiscard]] std::string chain_hash(std::string_view prev_hash, std::string_view content_sha256);
inline constexpr std::string_view kGenesisHash =
    "0000000000000000000000000000000000000000000000000000000000000000";

// The run's verdict in one word: pass, fail, measured-only, interrupted or incomplete.
[[nodiscard]] std::string run_verdict_word(const RunResult& run);

}  // namespace storqual::reporting
