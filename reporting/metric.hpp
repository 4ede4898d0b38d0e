// SPDX-License-Identifier: Apache-2.0
// What each kind of metric means, defined once: its unit, which way is better, and how a value is
// printed. The verdicts (runner/judge), the HTML, console, JUnit and fleet reports all read these;
// nothing re-derives a metric's meaning from its name. See docs/architecture.md ("add a metric").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace storqual::reporting {

// Capacity: the usable bytes a <capacity> check found (runner/methods/capacity_check.hpp).
// Waf (waf) and Dwpd (endurance.dwpd): over the whole run, from the NVMe health snapshots
// (runner/methods/wear.hpp); the claim's workload only says where it is reported.
// Percent: a share, such as a SNIA PTS write-saturation drop (wsat.drop_pct).
enum class MetricKind { Iops, Bandwidth, Latency, Capacity, Waf, Dwpd, Percent };

// The base unit every value of the kind is kept in: "IOPS", "B/s", "ns", "B", "x", "DWPD" or "%".
[[nodiscard]] const char* metric_unit(MetricKind kind) noexcept;

// Higher is better for every kind but latency and write amplification (a SNIA PTS figure has its
// own direction: PtsFigureInfo::lower_is_better).
[[nodiscard]] constexpr bool higher_is_better(MetricKind kind) noexcept {
  return kind != MetricKind::Latency && kind != MetricKind::Waf;
}

// The kind of a metric by the name spec sheets and verdicts give it: iops, bw, lat.mean, lat.pNN,
// clat.*, each optionally prefixed read. or write.; sustained.bw; capacity; waf; endurance.dwpd;
// a SNIA PTS figure (pts_figures()). Empty for any other name (runner/specs/spec_sheet.cpp
// parse_metric refuses those with the valid forms).
[[nodiscard]] std::optional<MetricKind> metric_kind_of(std::string_view name) noexcept;

// Higher is better for the metric of that name (a PTS figure: its own direction); a name of no kind
// (a report loaded from elsewhere) counts as higher-is-better, as throughput metrics do.
[[nodiscard]] bool higher_is_better(std::string_view metric_name) noexcept;

// The figures of the SNIA PTS tests (runner/methods/pts_tests.hpp measures them, docs/pts.md
// defines them) that a claim can name: wsat.iops, wsat.drop_pct, dirth.max_iops, xsr.recovery_rnd,
// hir.gain_pct, ...; each with its kind (so its unit and printing) and its direction.
struct PtsFigureInfo {
  std::string_view name;
  MetricKind kind;
  bool lower_is_better;
  std::string_view help;
};
[[nodiscard]] std::span<const PtsFigureInfo> pts_figures() noexcept;
// The figure of that name, or null.
[[nodiscard]] const PtsFigureInfo* find_pts_figure(std::string_view name) noexcept;

// A job thread busier than this (usr+sys, polling excluded, % of one CPU) measures the host, not
// the device: runner/methods/host_limits.cpp marks the result host-limited, the HTML flags it.
// 85, not 90: getrusage counts in ticks, and on a RAM disk (zram: the device is the submitting
// CPU) threads limited by nothing but the CPU were measured at 87%.
inline constexpr double kCpuBoundThreadPct = 85;

// Human numbers as in verdict messages: 80500 IOPS -> "80.5k", 5.4e8 B/s -> "540 MB/s",
// 310000 ns -> "310 us" (three significant digits, trailing zeros dropped).
[[nodiscard]] std::string format_metric_value(MetricKind kind, double value);

}  // namespace storqual::reporting
