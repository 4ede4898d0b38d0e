// SPDX-License-Identifier: Apache-2.0
// Printing IOPS, bandwidth and latency the way fio and datasheets do. Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace storqual::reporting {

// fio's num2str(): scale by `base` (1000 or 1024) until the integer part has at most `max_digits`
// digits, then fill up to `max_digits` significant digits with decimals when it was scaled.
// 97000 -> "97.0k", 1234 -> "1234", 397e6 (base 1000) -> "397M", 379*2^20 (base 1024) -> "379Mi".
// Non-finite or negative input prints as "-".
[[nodiscard]] std::string fio_num2str(double value, unsigned max_digits = 4, unsigned base = 1000);

[[nodiscard]] std::string format_iops(double iops);             // "97.0k IOPS"
[[nodiscard]] std::string format_rate_mb(double bytes_per_s);   // "540.1 MB/s" (decimal, vendors)
[[nodiscard]] std::string format_rate_mib(double bytes_per_s);  // "515.1 MiB/s"
[[nodiscard]] std::string format_latency(double ns);            // "850 ns", "1.23 ms", "95.4 us"
[[nodiscard]] std::string format_bytes_iec(double bytes);       // "22.2 GiB"
[[nodiscard]] std::string format_bytes_decimal(
    double bytes);  // "8.39 MB": capacities, as on labels
// A verdict value in its base unit ("IOPS", "B/s", "ns") as a reader wants it: "88.0k IOPS",
// "540.0 MB/s", "250.0 us". Other units print the number and the unit.
[[nodiscard]] std::string format_metric_value(double value, std::string_view unit);
// Three significant digits with the largest SI prefix that keeps the number at or above 1, trailing
// zeros dropped: the one format of a verdict's figures wherever they appear (the verdict message,
// the console's verdict table, JUnit's failure body and system-out). "IOPS" -> "80.5k IOPS",
// "B/s" -> "547 MB/s", "ns" -> "1.5 ms", "B" -> "64 GB"; "" -> the scaled count alone ("80.5k");
// another unit: "%.6g UNIT".
[[nodiscard]] std::string format_verdict_value(double value, std::string_view unit);
// "+12.3%", "-8.5%", "-" for no value.
[[nodiscard]] std::string format_percent_signed(double pct);
// A count and its noun, plural unless the count is one: (1, "workload") -> "1 workload",
// (0, "workload") -> "0 workloads".
[[nodiscard]] std::string count_of(std::size_t n, std::string_view noun);
// The parts with `sep` between them: ({"a", "b"}, ", ") -> "a, b"; {} -> "".
[[nodiscard]] std::string join_text(const std::vector<std::string>& parts, std::string_view sep);
// `v` in fixed notation with `decimals` decimals, as printf's "%.*f": (2.5, 1) -> "2.5",
// (0.456, 2) -> "0.46", (59.6, 0) -> "60", (-0.04, 1) -> "-0.0"; non-finite: "inf", "nan".
// The one fixed-decimals formatter: every other formatter here, the early-stop and busy-host
// reasons (runner/measure/) print their numbers with it.
[[nodiscard]] std::string format_fixed(double v, int decimals);
// Seconds in fixed notation with 3 decimals ("60.000"), as JUnit consumers expect.
[[nodiscard]] std::string format_seconds_fixed(double seconds);

}  // namespace storqual::reporting
