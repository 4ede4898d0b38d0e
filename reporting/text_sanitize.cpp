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

// The code point at text[i] and its length in bytes; false for a byte that starts no valid UTF-8
// sequence (a stray continuation byte, 0xF8..0xFF, a truncated or overlong sequence), which is
// then one byte long.
bool decode_at(std::string_view text, std::size_t i, std::uint32_t& cp, std::size_t& len) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::uint32_t min_cp = 0;
  len = 1;
  if (lead < 0x80) {
    cp = lead;
    return true;
  }
  if ((lead & 0xE0) == 0xC0) {
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
    return false;
  }
  if (i + len > text.size()) {
    len = 1;
    return false;
  }
  for (std::size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xC0) != 0x80) {
      len = 1;
      return false;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < min_cp || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    len = 1;
    return false;
  }
  return true;
}

}  // namespace

std::string sanitize_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t cp = 0;
    std::size_t len = 1;
    // A broken sequence or an overlong form: drop the lead byte only.
    if (decode_at(text, i, cp, len) && allowed_code_point(cp)) out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    std::uint32_t cp = 0;
    std::size_t len = 1;
    if (!decode_at(text, i, cp, len)) return false;
    i += len;
  }
  return true;
}

std::string terminal_text(std::string_view text) {
  std::string out = sanitize_text(text);
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
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
