// SPDX-License-Identifier: Apache-2.0
// The archive behind the results-store seam (archive/results_store.hpp, docs/archive.md):
// ArchiveResultsStore records every result saved through it; RecordingResultsStore is what
// `storqual run`, `bench --json` and `report` use: the files first, then the archive, and a
// failure of the archive never costs the run its reports or its exit code.
#pragma once

#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "archive/archive.hpp"
#include "archive/results_store.hpp"

namespace storqual::reporting {

// Records into the archive at `where`, each save over a connection of its own (so that a
// parallel fleet's threads may save at once). save() of a run lists the report files of
// `reports` that exist; a fleet's save records each of its runs. load(source): `source` is the
// SHA-256 of a recorded result. Throws ArchiveError.
class ArchiveResultsStore final : public ResultsStore {
 public:
  // `signer`: an Ed25519 private key that signs each record, or null.
  ArchiveResultsStore(ArchiveLocation where, std::vector<ArchiveTag> tags,
                      std::shared_ptr<const Ed25519Key> signer = nullptr)
      : where_(std::move(where)), tags_(std::move(tags)), signer_(std::move(signer)) {}
  [[nodiscard]] std::string_view name() const noexcept override { return "archive"; }
  void save(const RunResult& run, const ReportSet& reports) override { (void)record(run, reports); }
  void save(const FleetReport& fleet, const ReportSet& reports) override;
  [[nodiscard]] std::vector<RunResult> load(const std::string& source) override;
  RecordOutcome record(const RunResult& run, const ReportSet& reports);
  [[nodiscard]] const ArchiveLocation& location() const noexcept { return where_; }

 private:
  [[nodiscard]] std::unique_ptr<Archive> open() const;
  ArchiveLocation where_;
  std::vector<ArchiveTag> tags_;
  std::shared_ptr<const Ed25519Key> signer_;
};

// The files, then the archive (nothing when the archive is off). A record is said on `console`, one
// that fails on stderr with the command that records it later (`storqual archive import FILE`), and
// the save returns normally; a save of the files that fails throws as the file store does. A
// fleet's save records only the runs this store has not recorded already (a fleet's targets each
// saved their own run). Thread-safe.
class RecordingResultsStore final : public ResultsStore {
 public:
  RecordingResultsStore(ResultsStore& files, ArchiveLocation where, std::vector<ArchiveTag> tags,
                        std::FILE* console, std::shared_ptr<const Ed25519Key> signer = nullptr);
  [[nodiscard]] std::string_view name() const noexcept override { return "files+archive"; }
  void save(const RunResult& run, const ReportSet& reports) override;
  void save(const FleetReport& fleet, const ReportSet& reports) override;
  [[nodiscard]] std::vector<RunResult> load(const std::string& source) override {
    return files_.load(source);
  }
  // The acceptance record of the unit `serial` in the archive, for a re-test's drift verdicts
  // (docs/archive.md, "Drift"): nullopt when the archive is off, has none, or cannot be read
  // (that is said on the console; the record that follows says it again if it fails too).
  [[nodiscard]] std::optional<AcceptanceRecord> acceptance_of(const std::string& serial) const;
  // Records that failed so far (a test, and the exit of `archive import`).
  [[nodiscard]] std::size_t failures() const;

 private:
  void record(const RunResult& run, const ReportSet& reports);
  ResultsStore& files_;
  ArchiveResultsStore archive_;
  bool off_;
  std::FILE* console_;
  mutable std::mutex mutex_;
  std::set<std::string> recorded_;  // runs recorded by this store (run_key)
  std::size_t failures_ = 0;
};

// `word` as one word of a POSIX shell: as it is when it holds only safe characters, else in
// single quotes.
[[nodiscard]] std::string shell_quoted(const std::string& word);

// The command that records `json_file` later, naming the archive unless it is the default one;
// each word shell-quoted, so that it can be pasted as it is printed.
[[nodiscard]] std::string archive_import_command(const std::string& json_file,
                                                 const ArchiveLocation& where);

}  // namespace storqual::reporting
