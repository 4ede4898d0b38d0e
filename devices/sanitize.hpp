// SPDX-License-Identifier: Apache-2.0
// Strings read from devices (sysfs attributes, NVMe identify pages, udev) are untrusted: they are
// space-padded, may hold control characters or invalid UTF-8. sanitize_device_string makes them
// safe to print and to put into any report.
#pragma once

#include <string>
#include <string_view>

namespace storqual::devices {

// Trims leading and trailing whitespace and NULs; replaces each control character (C0, DEL, C1)
// and each byte of an invalid UTF-8 sequence with U+FFFD; collapses nothing else.
[[nodiscard]] std::string sanitize_device_string(std::string_view raw);

}  // namespace storqual::devices
