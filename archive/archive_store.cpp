// SPDX-License-Identifier: Apache-2.0
// The archive behind the results-store seam (archive_store.hpp).
#include "archive/archive_store.hpp"

#include <filesystem>

#include "archive/history_format.hpp"
#include "reporting/result_json.hpp"

namespace storqual::reporting {
namespace {

// Who a run is within one process: its host, target, command line and times (a fleet's merged runs
// are its targets' runs with lot verdicts added: the same key, another content).
std::string run_key(const RunResult& run) {
  const Environment& e = run.environment;
  return e.host + '\n' + run.device.path + '\n' + run.device.name + '\n' + e.command_line + '\n' +
         e.start_utc + '\n' + e.end_utc + '\n' + std::to_string(e.wall_time_s);
}

}  // namespace

std::unique_ptr<Archive> ArchiveResultsStore::open() const {
  auto archive = Archive::open(where_);
  if (signer_) archive->sign_with(signer_);
  return archive;
}

RecordOutcome ArchiveResultsStore::record(const RunResult& run, const ReportSet& reports) {
  auto archive = Archive::open(where_, run.environment.storqual_version);
  if (signer_) archive->sign_with(signer_);
  return archive->record(run, to_json_text(run), archived_files(reports), tags_);
}

void ArchiveResultsStore::save(const FleetReport& fleet, const ReportSet&) {
  const auto archive = open();
  for (const auto& run : fleet.runs) (void)archive->record(run, to_json_text(run), {}, tags_);
}

std::vector<RunResult> ArchiveResultsStore::load(const std::string& source) {
  const auto archive = Archive::open_to_read(where_);
  const auto text = archive->result_json(source);
  if (!text) throw ResultJsonError(where_.display() + ": no result with SHA-256 " + source);
  try {
    return {run_result_from_json(*text)};
  } catch (const ResultJsonError& e) {
    throw ResultJsonError(where_.display() + ": result " + source + ": " + e.what());
  }
}

std::string shell_quoted(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789_-.,/:@%+=") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string archive_import_command(const std::string& json_file, const ArchiveLocation& where) {
  std::string cmd =
      "storqual archive import " + (json_file.empty() ? "RESULT.json" : shell_quoted(json_file));
  if (!where.is_default) cmd += " --archive " + shell_quoted(where.display());
  return cmd;
}

RecordingResultsStore::RecordingResultsStore(ResultsStore& files, ArchiveLocation where,
                                             std::vector<ArchiveTag> tags, std::FILE* console,
                                             std::shared_ptr<const Ed25519Key> signer)
    : files_(files),
      archive_(where, std::move(tags), std::move(signer)),
      off_(where.kind == ArchiveLocation::Kind::Off),
      console_(console) {}

void RecordingResultsStore::record(const RunResult& run, const ReportSet& reports) {
  if (off_) return;
  {
    std::lock_guard lock(mutex_);
    if (recorded_.count(run_key(run))) return;
  }
  try {
    const RecordOutcome out = archive_.record(run, reports);
    std::lock_guard lock(mutex_);
    recorded_.insert(run_key(run));
    std::fprintf(console_, "  archive: %s record %lld in %s (result %.12s)\n",
                 out.already ? "already" : "recorded as", static_cast<long long>(out.seq),
                 archive_.location().display().c_str(), out.result_sha256.c_str());
    if (!out.already)
      std::fputs(format_drift(Archive::open_to_read(archive_.location())->drift(out.seq)).c_str(),
                 console_);
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    ++failures_;
    std::fprintf(stderr,
                 "storqual: archive: could not record the run in %s: %s\n"
                 "storqual: archive: the reports are written; record it later with: %s\n",
                 archive_.location().display().c_str(), e.what(),
                 archive_import_command(reports.json, archive_.location()).c_str());
  }
}

void RecordingResultsStore::save(const RunResult& run, const ReportSet& reports) {
  files_.save(run, reports);
  record(run, reports);
}

void RecordingResultsStore::save(const FleetReport& fleet, const ReportSet& reports) {
  files_.save(fleet, reports);
  for (const auto& run : fleet.runs) record(run, ReportSet{reports.json, {}, {}, false, {}});
}

std::optional<AcceptanceRecord> RecordingResultsStore::acceptance_of(
    const std::string& serial) const {
  if (off_ || serial.empty()) return std::nullopt;
  // Reading must not create an archive (the record after the run does that).
  std::error_code ec;
  if (archive_.location().kind == ArchiveLocation::Kind::Sqlite &&
      !std::filesystem::exists(archive_.location().target, ec))
    return std::nullopt;
  try {
    return Archive::open_to_read(archive_.location())->acceptance(serial);
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    std::fprintf(console_, "  archive: no drift verdict (the archive cannot be read: %s)\n",
                 e.what());
    return std::nullopt;
  }
}

std::size_t RecordingResultsStore::failures() const {
  std::lock_guard lock(mutex_);
  return failures_;
}

}  // namespace storqual::reporting
