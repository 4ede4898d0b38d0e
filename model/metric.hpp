// SPDX-License-Identifier: Apache-2.0
// What each kind of metric means, defined once: its unit, which way is better, and how a value is
// printed. The verdicts (runner/judge), the HTML, console, JUnit and fleet reports all read these;
// nothing re-derives a metric's meaning from its name. See docs/architecture.md ("add a metric").
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace storqual::reporting {

// Capacity: the usable bytes a <capacity> check found (runner/methods/capacity/capacity_check.hpp).
// Waf (waf) and Dwpd (endurance.dwpd): over the whole run, from the NVMe health snapshots
// (runner/methods/gates/wear.hpp); the claim's workload only says where it is reported.
// Percent: a share, such as a SNIA PTS write-saturation drop (wsat.drop_pct).
enum class MetricKind { Iops, Bandwidth, Latency, Capacity, Waf, Dwpd, Percent };

// The base unit every value of the kind is kept in: "IOPS", "B/s", "ns", "B", "x", "DWPD" or "%".
[[nodiscard]] const char* metric_unit(MetricKind kind) noexcept;

// Higher is better for every kind but latency and write amplification (a named figure has its
// own direction: FigureInfo::lower_is_better).
[[nodiscard]] constexpr bool higher_is_better(MetricKind kind) noexcept {
  return kind != MetricKind::Latency && kind != MetricKind::Waf;
}

// What a claim on a metric reads: both directions (iops, bw: their sum; a latency: the worse) or
// one; and which of fio's latencies, lat (submission to completion) or clat (completion only).
enum class MetricDirection { Both, Read, Write };
enum class LatencyKind { Lat, Clat };

// A figure measured by name rather than from a workload's per-direction counts: what a method
// publishes (WorkloadResult::figures: a sustained write's post-cache rate, a capacity check's
// usable bytes, every SNIA PTS figure) or what the run measures as a whole (write amplification,
// endurance). One row of figure_table() each: adding a claimable figure is one row here and the
// method's `add_figure` of it.
struct FigureInfo {
  std::string_view name;  // as a claim names it: "sustained.bw", "wsat.iops"
  MetricKind kind;        // its unit and printing
  bool lower_is_better;
  // Who measures it: the suite element of the method that publishes it ("sustained-write",
  // "capacity", "wsat", "dirth", "xsr", "hir"), or "run" for a figure of the whole run.
  std::string_view source;
  // What it is, in the glossary's words (the verdict's `figure`, the HTML, JUnit); "{jobs}" is
  // replaced by the workload's "N jobs".
  std::string_view help;
  // The direction its verdict names ("measured write 380 MB/s"): Both but for a write's rates.
  MetricDirection direction = MetricDirection::Both;
  // Whether CPU competition can change it: a busy host makes a performance figure's verdict weaker;
  // a capacity found is the device's whatever the host did.
  bool performance = true;
  // How a verdict words a value of it, "{value}" replaced ("{value} usable"); empty: "NAME VALUE".
  std::string_view verdict_form = {};
};
// Every named figure: the run's (run_figure_rows()) and each method's, as the method registry
// adds them (runner/methods/method_registry.cpp register_methods, once, before anything reads the
// table; the table is not safe to extend while another thread reads it).
[[nodiscard]] std::span<const FigureInfo> figure_table() noexcept;
[[nodiscard]] std::span<const FigureInfo> run_figure_rows() noexcept;
// Adds rows (a name already in the table is kept as it is).
void add_figure_rows(std::span<const FigureInfo> rows);
// The row of that name, or null.
[[nodiscard]] const FigureInfo* find_figure(std::string_view name) noexcept;

// Publishes figure `name` of the table (its unit from the row) in `out`, as a method does:
// add_figure(result.figures, "sustained.bw", rate).
void add_figure(std::vector<Figure>& out, std::string_view name, double value);

// The grammar of every claim metric, in one place: a named figure (figure_table()), or a figure
// of any workload's counts, [read.|write.](iops | bw | lat.STAT | clat.STAT) with STAT "mean" or
// "pNN" (p99, p99.9, ...). What a name says; which percentiles a claim may name is the claim's
// business (runner/specs/spec_sheet.cpp parse_metric checks `stat` against them).
struct MetricName {
  MetricKind kind = MetricKind::Iops;
  MetricDirection direction = MetricDirection::Both;
  LatencyKind latency = LatencyKind::Lat;  // kind == Latency (a workload's latency)
  std::string_view stat;                   // kind == Latency: "mean", "p99", ... as written
  const FigureInfo* figure = nullptr;      // a named figure; null for a workload's counts
};
// Empty for a name of neither form.
[[nodiscard]] std::optional<MetricName> parse_metric_name(std::string_view name) noexcept;
// The valid forms, for the message that refuses another name: "iops, bw, lat.mean, ... or a
// figure: waf, endurance.dwpd, sustained.bw, capacity, ..., wsat.iops, ..." (the table's order).
[[nodiscard]] std::string metric_forms();

// The kind of a metric by its name (parse_metric_name); empty for a name of neither form.
[[nodiscard]] std::optional<MetricKind> metric_kind_of(std::string_view name) noexcept;

// Higher is better for the metric of that name (a named figure: its own direction); a name of no
// kind (a report loaded from elsewhere) counts as higher-is-better, as throughput metrics do.
[[nodiscard]] bool higher_is_better(std::string_view metric_name) noexcept;

// A job thread busier than this (usr+sys, polling excluded, % of one CPU) measures the host, not
// the device: runner/methods/gates/host_limits.cpp marks the result host-limited, the HTML flags
// it. 85, not 90: getrusage counts in ticks, and on a RAM disk (zram: the device is the submitting
// CPU) threads limited by nothing but the CPU were measured at 87%.
inline constexpr double kCpuBoundThreadPct = 85;

// Human numbers as in verdict messages: 80500 IOPS -> "80.5k", 5.4e8 B/s -> "540 MB/s",
// 310000 ns -> "310 us" (three significant digits, trailing zeros dropped).
[[nodiscard]] std::string format_metric_value(MetricKind kind, double value);

}  // namespace storqual::reporting
