// SPDX-License-Identifier: Apache-2.0
// Making untrusted text (device strings, file contents, command lines) safe for XML 1.0, HTML and
// the terminal.
#pragma once

#include <string>
#include <string_view>

namespace storqual::reporting {

// Returns `text` as valid UTF-8 without the characters XML 1.0 forbids or HTML calls controls:
// C0 controls except tab, LF and CR; DEL and the C1 controls (U+007F..U+009F); U+FFFE and U+FFFF.
// Invalid UTF-8 (stray continuation bytes, overlong forms, encoded surrogates, truncated sequences,
// code points above U+10FFFF) is dropped byte by byte. Never throws except std::bad_alloc.
[[nodiscard]] std::string sanitize_text(std::string_view text);

// Whether `text` is valid UTF-8 (no stray or truncated sequence, overlong form, encoded surrogate
// or code point above U+10FFFF).
[[nodiscard]] bool valid_utf8(std::string_view text);

// Text from a device, a file or the archive as a terminal line may show it: sanitize_text(), and
// tab, LF and CR as spaces (no escape sequence, bell or line break reaches the terminal).
[[nodiscard]] std::string terminal_text(std::string_view text);

// sanitize_text(), then &, <, >, " and ' as character references: safe in HTML text and in
// double- or single-quoted attribute values.
[[nodiscard]] std::string escape_html(std::string_view text);

}  // namespace storqual::reporting
