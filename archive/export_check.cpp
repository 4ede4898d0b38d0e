// SPDX-License-Identifier: Apache-2.0
// `storqual archive verify-export DIR` (archive_export.hpp): an export checked from its own files,
// without the archive.
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "archive/archive_export.hpp"
#include "archive/archive_rows.hpp"
#include "reporting/result_json.hpp"

namespace storqual::reporting {
namespace fs = std::filesystem;
namespace {

using Json = nlohmann::ordered_json;

std::optional<std::string> file_bytes(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

bool safe_relative(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  for (const auto& part : fs::path(path))
    if (part == ".." || part == "." || part.empty()) return false;
  return true;
}

// The manifest's lines, each file there with its SHA-256, and no file that it does not list.
std::optional<std::string> manifest_problem(const fs::path& root, const std::string& manifest,
                                            ExportCheck& c) {
  std::map<std::string, std::string> listed;
  std::istringstream lines(manifest);
  for (std::string line; std::getline(lines, line);) {
    const std::string sha = line.substr(0, 64), path = line.size() > 66 ? line.substr(66) : "";
    if (line.size() < 67 || line.substr(64, 2) != "  " || !safe_relative(path))
      return "MANIFEST.sha256: a line that is not '<sha256>  <relative path>'";
    const auto bytes = file_bytes(root / path);
    if (!bytes) return path + " is in the manifest but not in the export";
    if (archive_sha256_hex(*bytes) != sha)
      return path + " does not have the SHA-256 the manifest gives";
    listed[path] = sha;
  }
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(root, ec)) {
    if (e.is_directory()) continue;
    const std::string rel = fs::relative(e.path(), root).string();
    if (rel != "MANIFEST.sha256" && rel != "MANIFEST.sha256.sig" && !listed.count(rel))
      return rel + " is in the export but not in the manifest";
  }
  c.files = listed.size();
  return std::nullopt;
}

std::optional<std::string> signature_problem(const fs::path& root, const std::string& manifest,
                                             const Ed25519Key& key) {
  const auto sig = file_bytes(root / "MANIFEST.sha256.sig");
  if (!sig) return "the manifest is not signed (no MANIFEST.sha256.sig)";
  std::istringstream in(*sig);
  std::string magic, key_line, signature_line;
  std::getline(in, magic);
  std::getline(in, key_line);
  std::getline(in, signature_line);
  if (magic != "storqual export manifest v1" || key_line.rfind("key ", 0) != 0 ||
      signature_line.rfind("signature ", 0) != 0)
    return "MANIFEST.sha256.sig is not a storqual export signature";
  if (key_line.substr(4) != key.key_id())
    return "the manifest is not signed by the key given (" + key.key_id().substr(0, 16) + ")";
  if (!key.verify_hex(export_signature_message(archive_sha256_hex(manifest)),
                      signature_line.substr(10)))
    return "the manifest's signature does not verify with the key given";
  return std::nullopt;
}

// chain.jsonl: each link the hash of its content and of the one before, numbered one after another.
std::optional<std::string> chain_problem(const std::string& text,
                                         std::map<std::int64_t, Json>& links, ExportCheck& c) {
  std::istringstream lines(text);
  const Json* before = nullptr;
  for (std::string line; std::getline(lines, line);) {
    const Json link = Json::parse(line, nullptr, false);
    if (!link.is_object() || !link.contains("record") || !link["record"].is_number_integer())
      return "chain.jsonl: a line that is not a link";
    const std::int64_t seq = link["record"];
    const std::string prev = link.value("prev_hash", ""), hash = link.value("record_hash", "");
    if (chain_hash(prev, link.value("content_sha256", "")) != hash)
      return "chain.jsonl: record " + std::to_string(seq) + "'s hash is not that of its content";
    if (before && ((*before)["record"].get<std::int64_t>() + 1 != seq ||
                   (*before)["record_hash"].get<std::string>() != prev))
      return "chain.jsonl: record " + std::to_string(seq) + " does not follow the link before it";
    before = &(links[seq] = link);
    c.head_hash = hash;
  }
  return std::nullopt;
}

// Each exported record's content hash, recomputed from its result, tags and report files.
std::optional<std::string> record_problem(const fs::path& root, const Json& r,
                                          const std::map<std::int64_t, Json>& links) {
  const std::int64_t seq = r.value("record", std::int64_t{0});
  const std::string sha = r.value("result_sha256", ""), name = "record " + std::to_string(seq);
  const auto link = links.find(seq);
  if (link == links.end() || link->second.value("result_sha256", "") != sha)
    return name + " is not in chain.jsonl with its result";
  const auto json = file_bytes(root / "results" / (sha + ".json"));
  if (!json || archive_sha256_hex(*json) != sha)
    return name + ": its result file is not in the export";
  std::vector<ArchivedFile> files;
  for (const auto& f : r.value("report_files", Json::array()))
    files.push_back({f.value("kind", ""), f.value("path", ""), f.value("sha256", ""),
                     f.value("bytes", std::int64_t{0})});
  std::vector<ArchiveTag> tags;
  for (const auto& t : r.value("tags", Json::array()))
    tags.push_back({t.value("key", ""), t.value("value", "")});
  const RecordHead head{seq, link->second.value("kind", ""), sha,
                        link->second.value("recorded_utc", "")};
  const std::string content =
      canonical_record(head, derive_record_rows(run_result_from_json(*json), files, tags));
  if (archive_sha256_hex(content) != link->second.value("content_sha256", ""))
    return name +
           ": its content hash does not follow from its exported result, tags and report "
           "files";
  return std::nullopt;
}

}  // namespace

ExportCheck verify_export(const std::string& dir, const Ed25519Key* public_key) {
  ExportCheck c;
  const fs::path root(dir);
  const auto manifest = file_bytes(root / "MANIFEST.sha256");
  if (!manifest) {
    c.problem = dir + ": no MANIFEST.sha256 (not a storqual export)";
    return c;
  }
  c.problem = manifest_problem(root, *manifest, c);
  if (!c.problem && public_key) c.problem = signature_problem(root, *manifest, *public_key);
  std::map<std::int64_t, Json> links;
  if (!c.problem)
    c.problem = chain_problem(file_bytes(root / "chain.jsonl").value_or(""), links, c);
  const Json about = Json::parse(file_bytes(root / "export.json").value_or(""), nullptr, false);
  if (!c.problem && !(about.is_object() && about.contains("records")))
    c.problem = "export.json is not a storqual export's";
  for (const auto& r : c.problem ? Json::array() : about["records"]) {
    try {
      c.problem = record_problem(root, r, links);
    } catch (const std::exception& e) {
      c.problem = "record " + r.value("record", Json()).dump() + ": " + e.what();
    }
    if (c.problem) break;
    ++c.records;
  }
  return c;
}

}  // namespace storqual::reporting
