// SPDX-License-Identifier: Apache-2.0
// Making untrusted text (device strings, file contents, command lines) safe for XML 1.0 and HTML.
#pragma once

#include <string>
#include <string_view>

namespace storqual::reporting {

// Returns `text` as valid UTF-8 without the characters XML 1.0 forbids or HTML calls controls:
// C0 controls except tab, LF and CR; DEL and the C1 controls (U+007F..U+009F); U+FFFE and U+FFFF.
// Invalid UTF-8 (stray continuation bytes, overlong forms, encoded surrogates, truncated sequences,
// code points above U+10FFFF) is dropped byte by byte. Never throws except std::bad_alloc.
[[nodiscard]] std::string sanitize_text(std::string_view text);

// sanitize_text(), then &, <, >, " and ' as character references: safe in HTML text and in
// double- or single-quoted attribute values.
[[nodiscard]] std::string escape_html(std::string_view text);

}  // namespace storqual::reporting
