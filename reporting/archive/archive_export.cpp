// SPDX-License-Identifier: Apache-2.0
// `storqual archive export` (archive_export.hpp).
#include "reporting/archive/archive_export.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

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
  // A file a record names, copied only when it still has the SHA-256 the record holds.
  void copy(const std::string& what, const std::string& path, const std::string& sha256,
            const std::string& relative) {
    const auto bytes = bytes_of(path);
    if (!bytes) return summary_.not_copied.push_back(what + " " + path + ": missing");
    if (!sha256.empty() && archive_sha256_hex(*bytes) != sha256)
      return summary_.not_copied.push_back(what + " " + path + ": changed since it was recorded");
    if (written_.insert(relative).second) write(relative, *bytes);
  }
  void finish() { write_file_atomically((dir_ / "MANIFEST.sha256").string(), manifest_); }

 private:
  fs::path dir_;
  ExportSummary& summary_;
  std::string manifest_;
  std::set<std::string> written_;
};

}  // namespace

ExportSummary export_records(Archive& archive, const std::vector<HistoryRow>& rows,
                             const std::string& dir) {
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
    for (const auto& f : archive.report_files(row.record))
      out.copy(
          "report", f.path, f.sha256,
          "reports/" + std::to_string(row.record) + "/" + fs::path(f.path).filename().string());
    const RunResult run = run_result_from_json(*text);
    if (!run.spec.path.empty())
      out.copy("spec sheet", run.spec.path, run.spec.sha256,
               "specs/" + run.spec.sha256.substr(0, 12) + "-" +
                   fs::path(run.spec.path).filename().string());
    if (!run.spec.suite_path.empty())
      out.copy("suite", run.spec.suite_path, run.spec.suite_sha256,
               "suites/" + run.spec.suite_sha256.substr(0, 12) + "-" +
                   fs::path(run.spec.suite_path).filename().string());
    records.push_back({{"record", row.record},
                       {"result_sha256", row.result_sha256},
                       {"serial", row.serial},
                       {"model", row.model},
                       {"verdict", row.verdict}});
    first = first ? std::min(first, row.record) : row.record;
    last = std::max(last, row.record);
    ++summary.records;
  }
  std::string chain;
  if (first)
    for (const auto& link : archive.chain_segment(first, last))
      chain += Json{{"record", std::get<std::int64_t>(link[0])},
                    {"result_sha256", cell_text(link[1])},
                    {"content_sha256", cell_text(link[2])},
                    {"prev_hash", cell_text(link[3])},
                    {"record_hash", cell_text(link[4])}}
                   .dump() +
               "\n";
  out.write("chain.jsonl", chain);
  const ChainCheck check = archive.verify();
  Json about{{"archive", archive.location().display()},
             {"records_in_archive", check.records},
             {"head_hash", check.head_hash},
             {"chain", check.problem ? *check.problem : "whole"},
             {"records", records}};
  out.write("export.json", about.dump(2) + "\n");
  out.finish();
  return summary;
}

}  // namespace storqual::reporting
