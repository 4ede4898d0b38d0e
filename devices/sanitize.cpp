// SPDX-License-Identifier: Apache-2.0
// Sanitizing untrusted device strings (see sanitize.hpp).
#include "devices/sanitize.hpp"

#include <cstdint>

namespace storqual::devices {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_space_or_nul(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one (overlongs, surrogates and
// code points past U+10FFFF are invalid).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[i + k]); };
  std::uint8_t c = b(0);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0)
    n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0)
    n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0)
    n = 4, cp = c & 0x07;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (cp >= 0x80 && cp <= 0x9F) return 0;  // C1 controls
  return n;
}

}  // namespace

std::string sanitize_device_string(std::string_view raw) {
  while (!raw.empty() && is_space_or_nul(raw.front())) raw.remove_prefix(1);
  while (!raw.empty() && is_space_or_nul(raw.back())) raw.remove_suffix(1);
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    auto c = static_cast<std::uint8_t>(raw[i]);
    if (c < 0x20 || c == 0x7F) {
      out += kReplacement;
      ++i;
      continue;
    }
    std::size_t n = utf8_sequence(raw, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(raw.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace storqual::devices
