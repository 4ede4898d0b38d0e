// SPDX-License-Identifier: Apache-2.0
// `storqual archive verify|import`: walk the archive's chain, or record results written before it
// (or while it was not there) (docs/archive.md).
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "archive/archive.hpp"
#include "archive/archive_export.hpp"
#include "archive/archive_rows.hpp"
#include "archive/results_store.hpp"
#include "reporting/result_json.hpp"
#include "reporting/text_sanitize.hpp"
#include "runner/cli/archive_options.hpp"
#include "runner/cli/cli.hpp"
#include "runner/cli/command_options.hpp"

namespace po = boost::program_options;

namespace storqual::runner {
namespace {

constexpr const char* kUsage =
    "usage: storqual archive verify [--archive X] [--head HASH] [--public-key FILE]\n"
    "       storqual archive import FILE... [--archive X] [--tag K=V...]\n"
    "       storqual archive export --tag K=V | --serial S | --model M [--since D] [--until D]\n"
    "                               --out DIR [--archive X] [--sign-key FILE]\n"
    "       storqual archive verify-export DIR [--public-key FILE]\n\n"
    "verify walks the archive's chain of records from the first and names the first record that\n"
    "was edited, inserted or removed (exit 1); it prints the last record's hash, to keep\n"
    "elsewhere; with --head, exit 1 also when the archive is not at or past that head (a cut,\n"
    "a rollback, an emptied file). import records result files (storqual run --json) and fleet\n"
    "files (storqual report --json); a result already in the archive (by its SHA-256) is not\n"
    "recorded again.\n"
    "export writes the matching records into DIR for the audit file: the results, their report\n"
    "files, sheets and suites, the chain's links over them and MANIFEST.sha256 (sha256sum -c),\n"
    "signed with --sign-key. verify-export checks an export from its own files: the manifest (and\n"
    "with --public-key its signature), the chain's links and each record's content hash.\n";

int verify(const reporting::ArchiveLocation& where, const po::variables_map& vm) {
  std::shared_ptr<const reporting::Ed25519Key> key;
  if (vm.count("public-key"))
    key = reporting::Ed25519Key::load_public(vm["public-key"].as<std::string>(), "--public-key");
  const std::optional<std::string> head =
      vm.count("head") ? std::optional(vm["head"].as<std::string>()) : std::nullopt;
  if (head &&
      (head->size() != 64 || head->find_first_not_of("0123456789abcdef") != std::string::npos))
    throw UsageError("--head: '" + head->substr(0, 80) +
                     "' is not a record hash (64 lower-case hex digits, as verify prints it)");
  std::unique_ptr<reporting::Archive> archive;
  try {
    archive = reporting::Archive::open_to_read(where);
  } catch (const reporting::ArchiveError& e) {
    if (!head) throw;
    // Whatever it is now (emptied, replaced, gone), it is not at the head given.
    std::printf("archive %s: it is not at or past the head given (%s): %s\n",
                where.display().c_str(), head->c_str(), e.what());
    return kExitClaimFailed;
  }
  const reporting::ChainCheck check = archive->verify(key.get());
  if (check.problem) {
    // A problem may quote a name from the archive (a trigger's): no control character printed.
    std::printf("archive %s: %lld records; the chain is broken: %s\n", where.display().c_str(),
                static_cast<long long>(check.records),
                reporting::terminal_text(*check.problem).c_str());
    return kExitClaimFailed;
  }
  // A head kept from before must still be in the chain: a cut tail, a rollback to a copy of
  // before, an archive emptied or replaced are not at or past it.
  if (head && *head != reporting::kGenesisHash && !check.hashes.count(*head)) {
    std::printf(
        "archive %s: %lld records, head %s; it is not at or past the head given: no "
        "record has the hash %s (records were cut from its end, or it was rolled back "
        "or replaced)\n",
        where.display().c_str(), static_cast<long long>(check.records), check.head_hash.c_str(),
        head->c_str());
    return kExitClaimFailed;
  }
  const std::string signed_by =
      key ? ", every record signed by key " + key->key_id().substr(0, 16) : std::string();
  std::printf("archive %s: %lld records, the chain is whole%s; head %s\n", where.display().c_str(),
              static_cast<long long>(check.records), signed_by.c_str(), check.head_hash.c_str());
  return kExitPass;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Records per transaction of `archive import` (docs/archive.md, "At scale"): one commit per record
// made the import as slow as the disk's commits (69 records/s on SQLite).
constexpr std::size_t kImportChunk = 50;

int import(const reporting::ArchiveLocation& where, const std::vector<std::string>& files,
           const std::vector<reporting::ArchiveTag>& tags,
           std::shared_ptr<const reporting::Ed25519Key> signer) {
  // Every file is read before anything is recorded: a bad one records nothing.
  struct Item {
    std::string path;
    reporting::RunResult run;
    std::string json;
  };
  std::vector<Item> items;
  for (const auto& path : files) {
    auto runs = reporting::FileResultsStore().load(path);
    const std::string bytes = file_bytes(path);
    const auto parsed = nlohmann::json::parse(bytes, nullptr, false);
    const bool single = !(parsed.is_object() && parsed.contains("fleet"));
    for (auto& r : runs) {
      // A result file is kept verbatim (the SHA-256 a run recorded at the time has); a fleet's
      // runs each as storqual writes a result.
      std::string json = single ? bytes : reporting::to_json_text(r);
      items.push_back({path, std::move(r), std::move(json)});
    }
  }
  const auto archive =
      reporting::Archive::open(where, version_string(), reporting::ArchiveAccess::Import);
  if (signer) archive->sign_with(std::move(signer));
  std::size_t added = 0;
  std::map<std::string, std::vector<reporting::ArchivedFile>> listed_of;  // hashed once per file
  for (std::size_t first = 0; first < items.size(); first += kImportChunk) {
    // One transaction (one commit) per chunk: a killed import leaves whole chunks.
    const std::size_t end = std::min(items.size(), first + kImportChunk);
    std::vector<std::vector<reporting::ArchivedFile>> chunk_files;
    chunk_files.reserve(end - first);  // no reallocation: the batch points into it
    std::vector<reporting::Archive::RecordItem> batch;
    for (std::size_t i = first; i < end; ++i) {
      auto [at, fresh] = listed_of.try_emplace(items[i].path);
      if (fresh) {
        reporting::ReportSet listed;
        listed.json = items[i].path;
        at->second = reporting::archived_files(listed);
      }
      chunk_files.push_back(at->second);
      batch.push_back({&items[i].run, &items[i].json, &chunk_files.back()});
    }
    const auto outs = archive->record_batch(batch, tags);
    for (std::size_t i = first; i < end; ++i) {
      const auto& out = outs[i - first];
      added += out.already ? 0 : 1;
      std::printf("%s: %s record %lld (result %.12s)\n", items[i].path.c_str(),
                  out.already ? "already" : "recorded as", static_cast<long long>(out.seq),
                  out.result_sha256.c_str());
    }
    std::fflush(stdout);
  }
  std::printf("archive %s: %zu of %zu results recorded, %zu already there\n",
              where.display().c_str(), added, items.size(), items.size() - added);
  return kExitPass;
}

int export_to(const reporting::ArchiveLocation& where, const po::variables_map& vm) {
  reporting::HistoryQuery q;
  if (vm.count("serial")) q.serial = vm["serial"].as<std::string>();
  if (vm.count("model")) q.model = vm["model"].as<std::string>();
  q.tags = archive_tags_of(vm);
  if (!q.serial && !q.model && q.tags.empty())
    throw UsageError("export: give --tag, --serial or --model (see --help)");
  if (vm.count("since"))
    q.since = reporting::parse_history_time(vm["since"].as<std::string>(), "--since");
  if (vm.count("until"))
    q.until = reporting::parse_history_time(vm["until"].as<std::string>(), "--until");
  if (!vm.count("out")) throw UsageError("export: --out DIR is required");
  const std::string dir = vm["out"].as<std::string>();
  require_archive_to_read(where, "nothing to export");
  const auto archive = reporting::Archive::open_to_read(where);
  const auto rows = archive->history(q);
  if (rows.empty()) throw UsageError("export: no record matches");
  const auto signer = archive_signer_of(vm);
  const auto summary = reporting::export_records(*archive, rows, dir, signer.get());
  for (const auto& n : summary.not_copied)
    std::fprintf(stderr, "storqual archive export: %s\n", n.c_str());
  std::printf(
      "exported %zu records, %zu files, into %s (check: cd %s && sha256sum -c MANIFEST.sha256; "
      "storqual archive verify-export %s%s)\n",
      summary.records, summary.files, dir.c_str(), dir.c_str(), dir.c_str(),
      signer ? " --public-key KEY.pub" : "");
  return kExitPass;
}

int verify_export(const std::vector<std::string>& rest, const po::variables_map& vm) {
  if (rest.size() != 1) throw UsageError("verify-export: give the export's folder (see --help)");
  std::shared_ptr<const reporting::Ed25519Key> key;
  if (vm.count("public-key"))
    key = reporting::Ed25519Key::load_public(vm["public-key"].as<std::string>(), "--public-key");
  const reporting::ExportCheck c = reporting::verify_export(rest[0], key.get());
  if (c.problem) {
    std::printf("export %s: does not verify: %s\n", rest[0].c_str(), c.problem->c_str());
    return kExitClaimFailed;
  }
  const std::string signed_by =
      key ? ", the manifest signed by key " + key->key_id().substr(0, 16) : std::string();
  std::printf("export %s: %zu records, %zu files, every hash recomputed%s; head %s\n",
              rest[0].c_str(), c.records, c.files, signed_by.c_str(), c.head_hash.c_str());
  return kExitPass;
}

}  // namespace

int cmd_archive(const Args& args) {
  po::options_description visible(kUsage);
  visible.add_options()("help,h", "this help");
  visible.add(archive_record_options());
  visible.add_options()("serial", po::value<std::string>(), "export: the unit's records")(
      "model", po::value<std::string>(), "export: the model's records")(
      "since", po::value<std::string>()->value_name("D"), "export: records of runs from D (UTC)")(
      "until", po::value<std::string>()->value_name("D"), "export: records of runs before D (UTC)")(
      "out", po::value<std::string>()->value_name("DIR"), "export: the folder to write")(
      "public-key", po::value<std::string>()->value_name("FILE"),
      "verify: every record must be signed by this Ed25519 public key (PEM); verify-export: the "
      "manifest must be")(
      "head", po::value<std::string>()->value_name("HASH"),
      "verify: the archive must be at or past this head (a record hash verify printed before)");
  po::options_description hidden;
  std::vector<std::string> words;
  hidden.add_options()("word", po::value(&words));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("word", -1);
  po::variables_map vm;
  if (parse_command_options(args, all, visible, vm, &positional)) return kExitPass;
  if (words.empty()) throw UsageError("give verify or import (see --help)");
  const std::vector<std::string> rest(words.begin() + 1, words.end());
  if (words[0] != "export")
    for (const char* o : {"serial", "model", "since", "until", "out"})
      if (vm.count(o)) throw UsageError(std::string("--") + o + " goes with export only");
  if (words[0] != "verify" && words[0] != "verify-export" && vm.count("public-key"))
    throw UsageError("--public-key goes with verify and verify-export only");
  if (words[0] != "verify" && vm.count("head")) throw UsageError("--head goes with verify only");
  if (words[0] == "verify-export") return verify_export(rest, vm);  // no archive: the folder only
  const reporting::ArchiveLocation where = archive_location_of(vm);
  if (where.kind == reporting::ArchiveLocation::Kind::Off)
    throw UsageError("the archive is off (--archive or STORQUAL_ARCHIVE): nothing to " + words[0]);
  if (words[0] == "verify" && vm.count("sign-key")) throw UsageError("verify takes no --sign-key");
  if (words[0] == "verify") {
    if (!rest.empty()) throw UsageError("verify takes no file (see --help)");
    if (vm.count("tag")) throw UsageError("verify takes no --tag");
    if (!vm.count("head")) require_archive_to_read(where, "nothing to verify");
    return verify(where, vm);
  }
  if (words[0] == "import") {
    if (rest.empty()) throw UsageError("import: give at least one result or fleet file");
    return import(where, rest, archive_tags_of(vm), archive_signer_of(vm));
  }
  if (words[0] == "export") {
    if (!rest.empty()) throw UsageError("export takes no file (see --help)");
    return export_to(where, vm);
  }
  throw UsageError("unknown archive command '" + words[0] +
                   "' (verify, import, export, verify-export)");
}

}  // namespace storqual::runner
