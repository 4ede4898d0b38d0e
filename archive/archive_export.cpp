// SPDX-License-Identifier: Apache-2.0
// `storqual archive export` (archive_export.hpp).
#include "archive/archive_export.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "archive/archive_rows.hpp"
#include "model/errors.hpp"
#include "reporting/atomic_file.hpp"
#include "reporting/result_json.hpp"

namespace storqual::reporting {
namespace fs = std::filesystem;
namespace {

using Json = nlohmann::ordered_json;

std::optional<std::string> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool is_sha256_hex(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A file name for the export from the name a record gives: letters, digits, '.', '_' and '-'
// (anything else '_'), never empty, never starting with '.' or '-' (no "..", no hidden file, no
// option-looking name), at most 100 bytes.
std::string safe_file_name(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  if (name.size() > 100) name.resize(100);
  if (name.empty() || name[0] == '.' || name[0] == '-') name = "file" + name;
  return name;
}

std::string cell_text(const SqlCell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&c)) return std::to_string(*i);
  return {};
}

class ExportFolder {
 public:
  ExportFolder(fs::path dir, ExportSummary& summary) : dir_(std::move(dir)), summary_(summary) {}
  void write(const std::string& relative, const std::string& bytes) {
    const fs::path p = dir_ / relative;
    fs::create_directories(p.parent_path());
    write_file_atomically(p.string(), bytes);
    manifest_ += archive_sha256_hex(bytes) + "  " + relative + "\n";
    ++summary_.files;
  }
  // A file a record names, copied only when the record holds its SHA-256 and it is a regular
  // file that still has it (what the record does not prove is not exported: a result that names
  // /etc/shadow without a hash exports nothing of it). `folder` is where it goes (specs/...).
  void copy(const std::string& what, const std::string& path, const std::string& sha256,
            const std::string& folder, bool hash_in_name = true) {
    auto missing = [&](const std::string& why) {
      summary_.not_copied.push_back(what + " " + path + ": " + why);
    };
    if (!is_sha256_hex(sha256)) return missing("not copied, the record holds no SHA-256 of it");
    std::error_code ec;
    if (!fs::exists(path, ec)) return missing("missing");
    if (!fs::is_regular_file(path, ec)) return missing("not copied, not a regular file");
    const auto bytes = bytes_of(path);
    if (!bytes) return missing("cannot be read");
    if (archive_sha256_hex(*bytes) != sha256) return missing("changed since it was recorded");
    const std::string relative =
        folder + (hash_in_name ? sha256.substr(0, 12) + "-" : "") + safe_file_name(path);
    if (written_.insert(relative).second) write(relative, *bytes);
  }
  void finish(const Ed25519Key* signer) {
    write_file_atomically((dir_ / "MANIFEST.sha256").string(), manifest_);
    if (!signer) return;
    const std::string signature =
        signer->sign_hex(export_signature_message(archive_sha256_hex(manifest_)));
    write_file_atomically(
        (dir_ / "MANIFEST.sha256.sig").string(),
        "storqual export manifest v1\nkey " + signer->key_id() + "\nsignature " + signature + "\n");
  }

 private:
  fs::path dir_;
  ExportSummary& summary_;
  std::string manifest_;
  std::set<std::string> written_;
};

}  // namespace

ExportSummary export_records(Archive& archive, const std::vector<HistoryRow>& rows,
                             const std::string& dir, const Ed25519Key* signer) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    throw UsageError("--out " + dir + ": not empty (an export goes into a new folder)");
  fs::create_directories(dir);
  ExportSummary summary;
  ExportFolder out(dir, summary);
  Json records = Json::array();
  std::int64_t first = 0, last = 0;
  for (const auto& row : rows) {
    const auto text = archive.result_json(row.result_sha256);
    if (!text) throw ArchiveError("record " + std::to_string(row.record) + ": its result is gone");
    out.write("results/" + row.result_sha256 + ".json", *text);
    Json reports = Json::array();
    for (const auto& f : archive.report_files(row.record)) {
      out.copy("report", f.path, f.sha256, "reports/" + std::to_string(row.record) + "/", false);
      reports.push_back(
          {{"kind", f.kind}, {"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}});
    }
    const RunResult run = run_result_from_json(*text);
    if (!run.spec.path.empty()) out.copy("spec sheet", run.spec.path, run.spec.sha256, "specs/");
    if (!run.spec.suite_path.empty())
      out.copy("suite", run.spec.suite_path, run.spec.suite_sha256, "suites/");
    Json tags = Json::array();
    for (const auto& t : row.tags) tags.push_back({{"key", t.key}, {"value", t.value}});
    records.push_back({{"record", row.record},
                       {"result_sha256", row.result_sha256},
                       {"serial", row.serial},
                       {"model", row.model},
                       {"verdict", row.verdict},
                       {"tags", tags},
                       {"report_files", reports}});
    first = first ? std::min(first, row.record) : row.record;
    last = std::max(last, row.record);
    ++summary.records;
  }
  std::string chain;
  if (first)
    for (const auto& link : archive.chain_segment(first, last))
      chain +=
          Json{{"record", std::get<std::int64_t>(link[0])}, {"result_sha256", cell_text(link[1])},
               {"content_sha256", cell_text(link[2])},      {"prev_hash", cell_text(link[3])},
               {"record_hash", cell_text(link[4])},         {"kind", cell_text(link[5])},
               {"recorded_utc", cell_text(link[6])}}
              .dump() +
          "\n";
  out.write("chain.jsonl", chain);
  const ChainCheck check = archive.verify();
  Json about{{"archive", archive.location().display()},
             {"records_in_archive", check.records},
             {"head_hash", check.head_hash},
             {"chain", check.problem ? *check.problem : "whole"},
             {"records", records}};
  out.write("export.json", about.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
  out.finish(signer);
  return summary;
}

std::string export_signature_message(std::string_view manifest_sha256) {
  return "storqual export manifest v1 " + std::string(manifest_sha256);
}

}  // namespace storqual::reporting
