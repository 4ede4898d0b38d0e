// SPDX-License-Identifier: Apache-2.0
#include "runner/specs/fio_values.hpp"

#include <cctype>
#include <charconv>

#include "runner/base/xml_file.hpp"

namespace storqual::runner::fio_values {

std::string refusal(const FioOption& o, std::string_view why) {
  return o.location + ": option '" + o.name + (o.has_value ? "=" + o.value : "") +
         "': " + std::string(why);
}

void refuse(const FioOption& o, std::string_view why) {
  throw FileError(refusal(o, why));
}

std::uint64_t fio_bytes(const FioOption& o, std::string_view v, unsigned kb_base) {
  if (v.starts_with("("))
    refuse(o, "arithmetic in parentheses: Debian's fio 3.33 is built without it (fio refuses it)");
  std::size_t i = 0;
  int base = 10;
  if (v.starts_with("0x") || v.starts_with("0X")) {
    base = 16;
    i = 2;
  }
  std::uint64_t n = 0;
  const char* begin = v.data() + i;
  auto [p, ec] = std::from_chars(begin, v.data() + v.size(), n, base);
  if (ec != std::errc() || p == begin) refuse(o, "expected a size such as 4k, 1m or 10g");
  std::string suffix(p, v.data() + v.size());
  for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (suffix.starts_with("%")) refuse(o, "a percentage of the target: storqual takes sizes");
  if (suffix.starts_with(".")) refuse(o, "a fraction: fio reads only the whole number before '.'");
  const unsigned other = kb_base == 1000 ? 1024 : 1000;
  static const std::string_view kPowers = "kmgtp";
  unsigned pow = 0, mult = kb_base;
  if (!suffix.empty()) {
    const std::size_t at = kPowers.find(suffix[0]);
    const bool iec = suffix.size() == 3 && suffix.substr(1) == "ib";
    if (at == std::string_view::npos ||
        !(suffix.size() == 1 || suffix == std::string(1, suffix[0]) + "b" || iec))
      refuse(o, "unknown size unit '" + suffix + "' (fio's are k, m, g, t, p, kb.., KiB..)");
    pow = static_cast<unsigned>(at) + 1;
    if (iec) mult = other;
  }
  for (; pow > 0; --pow)
    if (__builtin_mul_overflow(n, std::uint64_t{mult}, &n)) refuse(o, "the size is too large");
  return n;
}

std::uint64_t fio_micros(const FioOption& o, std::string_view v) {
  if (v.starts_with("(")) refuse(o, "arithmetic in parentheses: Debian's fio 3.33 has none");
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p == v.data()) refuse(o, "expected a time such as 60, 60s, 5m or 1h");
  std::string suffix(p, v.data() + v.size());
  for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::uint64_t mult = 1000000;
  if (suffix == "us" || suffix == "usec")
    mult = 1;
  else if (suffix == "ms" || suffix == "msec")
    mult = 1000;
  else if (suffix == "s" || suffix.empty())
    mult = 1000000;
  else if (suffix == "m")
    mult = 60000000;
  else if (suffix == "h")
    mult = 3600000000ull;
  else if (suffix == "d")
    mult = 86400000000ull;
  else
    refuse(o, "unknown time unit '" + suffix + "' (fio's are us, ms, s, m, h, d)");
  if (__builtin_mul_overflow(n, mult, &n)) refuse(o, "the time is too long");
  return n;
}

}  // namespace storqual::runner::fio_values
