// SPDX-License-Identifier: Apache-2.0
// Parsing and printing of fio-style quantities: sizes (k/m/g/t are powers of 1024, as in fio, and
// KiB/MiB/GiB/TiB), durations (ns/us/ms/s/m/h, plain numbers are seconds), percentages.
// Parsers throw UnitError with a message naming what was expected; they never allocate unboundedly.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "runner/base/errors.hpp"

namespace storqual::runner {

class UnitError : public storqual::Error {
 public:
  explicit UnitError(const std::string& what) : Error(what, kExitUsage) {}
};

// "4k" -> 4096, "1m" -> 1048576, "5g", "512", "4KiB", "1MiB", "2GiB". Also "KB"/"MB" as 1024s,
// as fio does for sizes. Rejects negative numbers, fractions of a byte, empty text and overflow.
[[nodiscard]] std::uint64_t parse_size(std::string_view text);
// "60s", "5m", "1h", "250ms", "30" (seconds), "100us". Returns seconds.
[[nodiscard]] double parse_duration(std::string_view text);
// "10%", "10" -> 10.0 (percent). 0..1000.
[[nodiscard]] double parse_percent(std::string_view text);

// 4096 -> "4k", 1048576 -> "1m", 1536 -> "1536" (fio's spelling, exact).
[[nodiscard]] std::string format_size_fio(std::uint64_t bytes);
// 1.5e9 -> "1.50 GB/s"-style human strings.
[[nodiscard]] std::string format_bytes_iec(double bytes);       // "4.00 GiB"
[[nodiscard]] std::string format_rate_mib(double bytes_per_s);  // "515.1 MiB/s"
[[nodiscard]] std::string format_count(double n);               // 97000 -> "97.0k"
[[nodiscard]] std::string format_ns(double ns);                 // 1234567 -> "1.23 ms"
[[nodiscard]] std::string format_duration_fio(
    double seconds);  // 60 -> "60s", 0.5 -> "500ms", 1e-6 -> "1us"

}  // namespace storqual::runner
