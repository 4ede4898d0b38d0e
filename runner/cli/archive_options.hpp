// SPDX-License-Identifier: Apache-2.0
// The options every command that records a result shares (`run`, `bench --json`, `report`):
// `--archive PATH|URL|off` and `--tag K=V` (docs/archive.md), and the store they make.
#pragma once

#include <boost/program_options.hpp>
#include <cstdio>
#include <memory>
#include <string_view>

#include "archive/archive_store.hpp"

namespace storqual::runner {

[[nodiscard]] boost::program_options::options_description archive_record_options();
// `--archive` alone (archive verify/import, history).
[[nodiscard]] boost::program_options::options_description archive_location_option();

// The location from --archive, else STORQUAL_ARCHIVE, else the default (UsageError naming the
// option or variable when it is wrong).
[[nodiscard]] reporting::ArchiveLocation archive_location_of(
    const boost::program_options::variables_map& vm);
[[nodiscard]] std::vector<reporting::ArchiveTag> archive_tags_of(
    const boost::program_options::variables_map& vm);

// The key of --sign-key, else STORQUAL_ARCHIVE_SIGN_KEY, else none.
[[nodiscard]] std::shared_ptr<const reporting::Ed25519Key> archive_signer_of(
    const boost::program_options::variables_map& vm);

// An archive to read (verify, history): one that is off, or an SQLite file that does not exist,
// is a UsageError (reading must not create an empty archive).
void require_archive_to_read(const reporting::ArchiveLocation& where, std::string_view what);

// The files, then the archive the options name (archive/archive_store.hpp).
[[nodiscard]] std::unique_ptr<reporting::RecordingResultsStore> recording_store(
    const boost::program_options::variables_map& vm, std::FILE* console);

}  // namespace storqual::runner
