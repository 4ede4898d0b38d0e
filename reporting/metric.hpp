// SPDX-License-Identifier: Apache-2.0
// What each kind of metric means, defined once: its unit, which way is better, and how a value is
// printed. The verdicts (runner/judge), the HTML, console, JUnit and fleet reports all read these;
// nothing re-derives a metric's meaning from its name. See docs/architecture.md ("add a metric").
#pragma once

#include <string>
#include <string_view>

namespace storqual::reporting {

// Capacity: the usable bytes a <capacity> check found.
enum class MetricKind { Iops, Bandwidth, Latency, Capacity };

// The base unit every value of the kind is kept in: "IOPS", "B/s", "ns" or "B".
[[nodiscard]] const char* metric_unit(MetricKind kind) noexcept;

// Higher is better for every kind but latency.
[[nodiscard]] constexpr bool higher_is_better(MetricKind kind) noexcept {
  return kind != MetricKind::Latency;
}

// Human numbers as in verdict messages: 80500 IOPS -> "80.5k", 5.4e8 B/s -> "540 MB/s",
// 310000 ns -> "310 us" (three significant digits, trailing zeros dropped).
[[nodiscard]] std::string format_metric_value(MetricKind kind, double value);

}  // namespace storqual::reporting
