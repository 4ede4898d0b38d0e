// SPDX-License-Identifier: Apache-2.0
// fio-style quantity parsing and printing.
#include "runner/base/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace storqual::runner {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Splits "12.5ms" into 12.5 and "ms". The number must be finite and non-negative.
double split_number(std::string_view text, std::string_view& suffix, const char* what) {
  std::string_view s = trim(text);
  if (s.empty()) throw UnitError(std::string("empty ") + what);
  if (s.front() == '-')
    throw UnitError(std::string("negative ") + what + " '" + std::string(s) + "'");
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr == s.data())
    throw UnitError(std::string("expected a ") + what + ", got '" + std::string(s) + "'");
  if (!std::isfinite(value)) throw UnitError(std::string("not a finite ") + what);
  suffix = trim(std::string_view(ptr, s.data() + s.size() - ptr));
  return value;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
  std::string_view suffix;
  double value = split_number(text, suffix, "size");
  double mult = 1;
  if (suffix.empty() || iequals(suffix, "b")) {
    mult = 1;
  } else {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(suffix.front())));
    std::string_view rest = suffix.substr(1);
    if (!(rest.empty() || iequals(rest, "b") || iequals(rest, "ib")))
      throw UnitError("unknown size unit '" + std::string(suffix) +
                      "' (expected k, m, g, t, KiB, MiB, GiB or TiB)");
    switch (c) {
      case 'k':
        mult = 1024.0;
        break;
      case 'm':
        mult = 1024.0 * 1024;
        break;
      case 'g':
        mult = 1024.0 * 1024 * 1024;
        break;
      case 't':
        mult = 1024.0 * 1024 * 1024 * 1024;
        break;
      case 'p':
        mult = 1024.0 * 1024 * 1024 * 1024 * 1024;
        break;
      default:
        throw UnitError("unknown size unit '" + std::string(suffix) +
                        "' (expected k, m, g, t, KiB, MiB, GiB or TiB)");
    }
  }
  double bytes = value * mult;
  if (bytes >= 18446744073709551615.0)
    throw UnitError("size '" + std::string(trim(text)) + "' is too large");
  if (bytes != std::floor(bytes))
    throw UnitError("size '" + std::string(trim(text)) + "' is not a whole number of bytes");
  return static_cast<std::uint64_t>(bytes);
}

double parse_duration(std::string_view text) {
  std::string_view suffix;
  double value = split_number(text, suffix, "duration");
  double mult = 1;
  if (suffix.empty() || suffix == "s" || suffix == "sec")
    mult = 1;
  else if (suffix == "ms")
    mult = 1e-3;
  else if (suffix == "us" || suffix == "\xc2\xb5s" || suffix == "\xce\xbcs")  // micro sign, mu
    mult = 1e-6;
  else if (suffix == "ns")
    mult = 1e-9;
  else if (suffix == "m" || suffix == "min")
    mult = 60;
  else if (suffix == "h")
    mult = 3600;
  else if (suffix == "d")
    mult = 86400;
  else
    throw UnitError("unknown duration unit '" + std::string(suffix) +
                    "' (expected ns, us, ms, s, m or h)");
  double seconds = value * mult;
  if (seconds > 1e12) throw UnitError("duration '" + std::string(trim(text)) + "' is too long");
  return seconds;
}

double parse_percent(std::string_view text) {
  std::string_view suffix;
  double value = split_number(text, suffix, "percentage");
  if (!(suffix.empty() || suffix == "%"))
    throw UnitError("expected a percentage such as '10%', got '" + std::string(trim(text)) + "'");
  if (value > 1000)
    throw UnitError("percentage '" + std::string(trim(text)) + "' is absurd (> 1000%)");
  return value;
}

std::string format_size_fio(std::uint64_t bytes) {
  static constexpr const char* kSuffix[] = {"", "k", "m", "g", "t"};
  int i = 0;
  while (i < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++i;
  }
  return std::to_string(bytes) + kSuffix[i];
}

namespace {
std::string printf_string(const char* fmt, double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v, unit);
  return buf;
}
}  // namespace

std::string format_bytes_iec(double bytes) {
  static constexpr const char* kUnit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  while (i < 5 && std::fabs(bytes) >= 1024) {
    bytes /= 1024;
    ++i;
  }
  return printf_string(i == 0 ? "%.0f %s" : "%.2f %s", bytes, kUnit[i]);
}

std::string format_rate_mib(double bps) {
  if (bps >= 1024.0 * 1024 * 1024)
    return printf_string("%.2f %s", bps / (1024.0 * 1024 * 1024), "GiB/s");
  if (bps >= 1024.0 * 1024) return printf_string("%.1f %s", bps / (1024.0 * 1024), "MiB/s");
  return printf_string("%.1f %s", bps / 1024, "KiB/s");
}

std::string format_count(double n) {
  if (n >= 1e9) return printf_string("%.2f%s", n / 1e9, "G");
  if (n >= 1e6) return printf_string("%.2f%s", n / 1e6, "M");
  if (n >= 1e3) return printf_string("%.1f%s", n / 1e3, "k");
  return printf_string("%.0f%s", n, "");
}

std::string format_ns(double ns) {
  if (ns >= 1e9) return printf_string("%.2f %s", ns / 1e9, "s");
  if (ns >= 1e6) return printf_string("%.2f %s", ns / 1e6, "ms");
  if (ns >= 1e3) return printf_string("%.1f %s", ns / 1e3, "us");
  return printf_string("%.0f %s", ns, "ns");
}

std::string format_duration_fio(double seconds) {
  // Whole microseconds (fio's finest duration unit), in the largest unit that keeps them exact.
  const auto us = static_cast<long long>(std::llround(seconds * 1e6));
  if (us % 1000000 == 0) return std::to_string(us / 1000000) + "s";
  if (us % 1000 == 0) return std::to_string(us / 1000) + "ms";
  return std::to_string(us) + "us";
}

}  // namespace storqual::runner
