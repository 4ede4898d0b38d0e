// SPDX-License-Identifier: Apache-2.0
// --archive and --tag (archive_options.hpp).
#include "runner/cli/archive_options.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <vector>
#include "model/errors.hpp"

namespace po = boost::program_options;

namespace storqual::runner {

po::options_description archive_location_option() {
  po::options_description o("archive");
  o.add_options()("archive", po::value<std::string>()->value_name("PATH|URL|off"),
                  "the acceptance archive: an SQLite file, a postgresql:// URI (credentials "
                  "through libpq's PGPASSWORD, service file or ~/.pgpass only) or off "
                  "[$STORQUAL_ARCHIVE, else /var/lib/storqual/archive.sqlite for root, "
                  "$XDG_DATA_HOME/storqual/archive.sqlite otherwise; docs/archive.md]");
  return o;
}

po::options_description archive_record_options() {
  po::options_description o = archive_location_option();
  o.add_options()("tag", po::value<std::vector<std::string>>()->value_name("K=V"),
                  "a tag the archive keeps with the record (po=4711, lot=L23, operator=...); "
                  "repeat for several")(
      "sign-key", po::value<std::string>()->value_name("FILE"),
      "sign each record with this Ed25519 private key (PEM; openssl genpkey -algorithm ed25519) "
      "[$STORQUAL_ARCHIVE_SIGN_KEY]; archive verify --public-key checks them");
  return o;
}

reporting::ArchiveLocation archive_location_of(const po::variables_map& vm) {
  std::optional<std::string> option;
  if (vm.count("archive")) option = vm["archive"].as<std::string>();
  return reporting::resolve_archive_location(option);
}

std::vector<reporting::ArchiveTag> archive_tags_of(const po::variables_map& vm) {
  std::vector<reporting::ArchiveTag> tags;
  if (vm.count("tag"))
    for (const auto& t : vm["tag"].as<std::vector<std::string>>())
      tags.push_back(reporting::parse_archive_tag(t, "--tag"));
  return tags;
}

void require_archive_to_read(const reporting::ArchiveLocation& where, std::string_view what) {
  using Kind = reporting::ArchiveLocation::Kind;
  if (where.kind == Kind::Off)
    throw UsageError("the archive is off (--archive or STORQUAL_ARCHIVE): " + std::string(what));
  std::error_code ec;
  if (where.kind == Kind::Sqlite && !std::filesystem::exists(where.target, ec))
    throw UsageError("no archive at " + where.target + " (--archive, STORQUAL_ARCHIVE)");
}

std::shared_ptr<const reporting::Ed25519Key> archive_signer_of(const po::variables_map& vm) {
  if (vm.count("sign-key"))
    return reporting::Ed25519Key::load_private(vm["sign-key"].as<std::string>(), "--sign-key");
  if (const char* env = std::getenv("STORQUAL_ARCHIVE_SIGN_KEY"); env && *env)
    return reporting::Ed25519Key::load_private(env, "STORQUAL_ARCHIVE_SIGN_KEY");
  return nullptr;
}

std::unique_ptr<reporting::RecordingResultsStore> recording_store(const po::variables_map& vm,
                                                                  std::FILE* console) {
  return std::make_unique<reporting::RecordingResultsStore>(
      reporting::default_results_store(), archive_location_of(vm), archive_tags_of(vm), console,
      archive_signer_of(vm));
}

}  // namespace storqual::runner
