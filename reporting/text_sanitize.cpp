// SPDX-License-Identifier: Apache-2.0
// A small UTF-8 validator that keeps only characters allowed in XML 1.0 and sensible in HTML.
#include "reporting/text_sanitize.hpp"

#include <cstdint>

namespace storqual::reporting {
namespace {

bool allowed_code_point(std::uint32_t cp) {
  if (cp < 0x20) return cp == 0x09 || cp == 0x0A || cp == 0x0D;
  if (cp >= 0x7F && cp <= 0x9F) return false;
  if (cp >= 0xD800 && cp <= 0xDFFF) return false;
  if (cp == 0xFFFE || cp == 0xFFFF) return false;
  return cp <= 0x10FFFF;
}

}  // namespace

std::string sanitize_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t len = 0;
    std::uint32_t cp = 0;
    std::uint32_t min_cp = 0;
    if (lead < 0x80) {
      len = 1;
      cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      len = 2;
      cp = lead & 0x1F;
      min_cp = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      len = 3;
      cp = lead & 0x0F;
      min_cp = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      len = 4;
      cp = lead & 0x07;
      min_cp = 0x10000;
    } else {
      ++i;  // stray continuation byte or 0xF8..0xFF
      continue;
    }
    if (i + len > n) {
      ++i;
      continue;
    }
    bool valid = true;
    for (std::size_t k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) {
        valid = false;
        break;
      }
      cp = (cp << 6) | (c & 0x3F);
    }
    if (!valid || cp < min_cp) {  // broken sequence or overlong form: drop the lead byte only
      ++i;
      continue;
    }
    if (allowed_code_point(cp)) out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

std::string escape_html(std::string_view text) {
  const std::string clean = sanitize_text(text);
  std::string out;
  out.reserve(clean.size() + clean.size() / 8);
  for (char c : clean) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace storqual::reporting
