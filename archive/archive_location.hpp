// SPDX-License-Identifier: Apache-2.0
// Where the archive is (docs/archive.md, "Where"): `--archive PATH|URL|off`, else the environment
// variable STORQUAL_ARCHIVE, else the default file: /var/lib/storqual/archive.sqlite for root,
// $XDG_DATA_HOME/storqual/archive.sqlite (~/.local/share/storqual/...) for anyone else. And the
// `--tag K=V` a record carries.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storqual::reporting {

struct ArchiveLocation {
  enum class Kind { Off, Sqlite, Postgresql };
  Kind kind = Kind::Off;
  std::string target;       // the file, or the libpq connection URI
  bool is_default = false;  // the default file: its directory is made when missing
  [[nodiscard]] std::string display() const;  // what messages name ("off", the file, the URI)
};

// Parses one spelling; `origin` names it in errors ("--archive", "STORQUAL_ARCHIVE"). A URI with
// a password is refused without repeating it (credentials only through libpq's environment,
// service and password files). Throws UsageError.
[[nodiscard]] ArchiveLocation parse_archive_location(std::string_view text,
                                                     std::string_view origin);

// The option if given, else STORQUAL_ARCHIVE if set and not empty, else the default file. A bad
// STORQUAL_ARCHIVE_LOCK_WAIT (archive_lock_wait_s) is refused here too, unless the archive is off,
// before a run measures.
[[nodiscard]] ArchiveLocation resolve_archive_location(const std::optional<std::string>& option);

// The default file for this user (from euid, XDG_DATA_HOME and HOME).
[[nodiscard]] std::string default_archive_path();

struct ArchiveTag {
  std::string key;
  std::string value;
  bool operator==(const ArchiveTag&) const = default;
};

// "K=V": K of letters, digits, '_', '-', '.' (1..64), V any printable text (up to 1024 bytes).
// Throws UsageError naming `origin` ("--tag").
[[nodiscard]] ArchiveTag parse_archive_tag(std::string_view text, std::string_view origin);

// `history --since/--until`: YYYY-MM-DD, optionally THH:MM[:SS][Z] (UTC), compared as text with
// the runs' start_utc. Returns it unchanged; throws UsageError naming `origin` otherwise.
[[nodiscard]] std::string parse_history_time(const std::string& text, std::string_view origin);

}  // namespace storqual::reporting
