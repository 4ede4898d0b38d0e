// SPDX-License-Identifier: Apache-2.0
// Where the archive is, and the tags of a record (archive_location.hpp).
#include "archive/archive_location.hpp"

#include <libpq-fe.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>

#include "archive/sql_connection.hpp"
#include "model/errors.hpp"
#include "reporting/text_sanitize.hpp"

namespace storqual::reporting {
namespace {

// A libpq key=value connection string ("dbname=lab host=/run/postgresql"): it starts with a
// keyword and '=' (a file of such a name is given as ./dbname=lab).
bool looks_like_conninfo(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_'))
    ++i;
  std::size_t j = i;
  while (j < text.size() && text[j] == ' ') ++j;
  return i > 0 && j < text.size() && text[j] == '=';
}

bool starts_with_any(std::string_view text, std::initializer_list<std::string_view> prefixes) {
  for (auto p : prefixes)
    if (text.substr(0, p.size()) == p) return true;
  return false;
}

// A password in the URI would be printed (messages, the result's command line) and stored: refused.
// libpq's own parser decides what the URI sets (a user:password@ part, a password= parameter, a
// percent-encoded one); any spelling of "password" in it is refused as well. libpq's message is
// not repeated: it may quote the URI.
void refuse_password(std::string_view uri, std::string_view origin) {
  const std::string text(uri);
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &error);
  const bool valid = options != nullptr;
  bool password = lower.find("password") != std::string::npos;
  // user:password@ (libpq reads the user part up to '@' or '/'), an empty password included.
  if (const std::size_t slashes = uri.find("//"); slashes != std::string_view::npos) {
    const std::string_view rest = uri.substr(slashes + 2);
    const std::size_t at = rest.find('@');
    if (at != std::string_view::npos && at < rest.find('/') &&
        rest.substr(0, at).find(':') != std::string_view::npos)
      password = true;
  }
  for (PQconninfoOption* o = options; o && o->keyword; ++o)
    if (std::string_view(o->keyword) == "password" && o->val) password = true;
  PQconninfoFree(options);
  PQfreemem(error);
  if (password)
    throw UsageError(
        std::string(origin) +
        ": the PostgreSQL connection string holds a password; storqual takes credentials only "
        "through libpq's PGPASSWORD, PGSERVICE, service file or ~/.pgpass "
        "(docs/archive.md), so that none is printed or stored");
  if (!valid)
    throw UsageError(std::string(origin) +
                     ": not a libpq connection string (postgresql://[user@][host][:port][/dbname]"
                     "[?param=value&...], or key=value pairs such as dbname=lab "
                     "host=/run/postgresql; docs/archive.md)");
}

}  // namespace

std::string ArchiveLocation::display() const {
  return kind == Kind::Off ? "off" : target;
}

ArchiveLocation parse_archive_location(std::string_view text, std::string_view origin) {
  ArchiveLocation l;
  if (text.empty()) throw UsageError(std::string(origin) + ": empty (give a file, a URI or off)");
  if (text == "off") return l;
  if (text.find('\0') != std::string_view::npos)
    throw UsageError(std::string(origin) + ": a NUL byte in the archive's name");
  if (starts_with_any(text, {"postgresql://", "postgres://"})) {
    refuse_password(text, origin);
    l.kind = ArchiveLocation::Kind::Postgresql;
    l.target = std::string(text);
    return l;
  }
  if (looks_like_conninfo(text)) {
    refuse_password(text, origin);
    l.kind = ArchiveLocation::Kind::Postgresql;
    l.target = std::string(text);
    return l;
  }
  if (text.find("://") != std::string_view::npos)
    throw UsageError(std::string(origin) + ": '" + std::string(text.substr(0, text.find("://"))) +
                     "://' is not an archive (a file, postgresql://..., or off)");
  if (text.back() == '/')
    throw UsageError(std::string(origin) + ": '" + std::string(text) +
                     "' names a directory; give the archive file (e.g. archive.sqlite)");
  l.kind = ArchiveLocation::Kind::Sqlite;
  l.target = std::string(text);
  return l;
}

std::string default_archive_path() {
  if (geteuid() == 0) return "/var/lib/storqual/archive.sqlite";
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/')
    return std::string(xdg) + "/storqual/archive.sqlite";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.local/share/storqual/archive.sqlite";
}

namespace {

ArchiveLocation location_named(const std::optional<std::string>& option) {
  if (option) return parse_archive_location(*option, "--archive");
  if (const char* env = std::getenv("STORQUAL_ARCHIVE"); env && *env)
    return parse_archive_location(env, "STORQUAL_ARCHIVE");
  ArchiveLocation l;
  l.kind = ArchiveLocation::Kind::Sqlite;
  l.target = default_archive_path();
  l.is_default = true;
  return l;
}

}  // namespace

ArchiveLocation resolve_archive_location(const std::optional<std::string>& option) {
  ArchiveLocation l = location_named(option);
  // A bad STORQUAL_ARCHIVE_LOCK_WAIT is refused before a run measures, not when it records.
  if (l.kind != ArchiveLocation::Kind::Off) (void)archive_lock_wait_s();
  return l;
}

ArchiveTag parse_archive_tag(std::string_view text, std::string_view origin) {
  const std::size_t eq = text.find('=');
  const std::string o(origin);
  if (eq == std::string_view::npos || eq == 0)
    throw UsageError(o + ": '" + std::string(text.substr(0, 80)) + "' is not K=V (e.g. po=4711)");
  const std::string_view key = text.substr(0, eq), value = text.substr(eq + 1);
  if (key.size() > 64) throw UsageError(o + ": the key is longer than 64 characters");
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok)
      throw UsageError(o + ": the key '" + std::string(key) +
                       "' may hold only letters, digits, '_', '-' and '.'");
  }
  if (value.size() > 1024)
    throw UsageError(o + ": the value of " + std::string(key) + " is longer than 1024 bytes");
  for (unsigned char c : value)
    if (c < 0x20 || c == 0x7f)
      throw UsageError(o + ": the value of " + std::string(key) + " holds a control character");
  // The record keeps the bytes given, hashed as they are: only valid UTF-8 (no byte a reader
  // would show as U+FFFD, and no C1 control).
  if (!valid_utf8(value) || sanitize_text(value).size() != value.size())
    throw UsageError(o + ": the value of " + std::string(key) +
                     " is not valid UTF-8 text (or holds a control character)");
  return {std::string(key), std::string(value)};
}

std::string parse_history_time(const std::string& text, std::string_view origin) {
  auto digits = [&](std::size_t from, std::size_t n) {
    if (text.size() < from + n) return false;
    for (std::size_t i = from; i < from + n; ++i)
      if (text[i] < '0' || text[i] > '9') return false;
    return true;
  };
  bool ok = text.size() >= 10 && digits(0, 4) && text[4] == '-' && digits(5, 2) && text[7] == '-' &&
            digits(8, 2);
  if (ok && text.size() > 10) {
    ok = text[10] == 'T' && text.size() >= 16 && digits(11, 2) && text[13] == ':' && digits(14, 2);
    std::size_t end = 16;
    if (ok && text.size() >= 19 && text[16] == ':') {
      ok = digits(17, 2);
      end = 19;
    }
    if (ok && text.size() > end) ok = text.size() == end + 1 && text[end] == 'Z';
  }
  if (!ok)
    throw UsageError(std::string(origin) + ": '" + text.substr(0, 40) +
                     "' is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z], UTC)");
  return text;
}

}  // namespace storqual::reporting
