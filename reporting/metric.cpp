// SPDX-License-Identifier: Apache-2.0
// The metric definitions (see metric.hpp).
#include "reporting/metric.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "reporting/quantity_format.hpp"

namespace storqual::reporting {
const char* metric_unit(MetricKind kind) noexcept {
  switch (kind) {
    case MetricKind::Iops:
      return "IOPS";
    case MetricKind::Bandwidth:
      return "B/s";
    case MetricKind::Latency:
      return "ns";
    case MetricKind::Capacity:
      return "B";
    case MetricKind::Waf:
      return "x";
    case MetricKind::Dwpd:
      return "DWPD";
    case MetricKind::Percent:
      return "%";
  }
  return "";
}

std::optional<MetricKind> metric_kind_of(std::string_view name) noexcept {
  if (name == "capacity") return MetricKind::Capacity;
  if (name == "waf") return MetricKind::Waf;
  if (name == "endurance.dwpd") return MetricKind::Dwpd;
  if (name == "sustained.bw") return MetricKind::Bandwidth;
  if (const PtsFigureInfo* f = find_pts_figure(name)) return f->kind;
  if (name.starts_with("read."))
    name.remove_prefix(5);
  else if (name.starts_with("write."))
    name.remove_prefix(6);
  if (name == "iops") return MetricKind::Iops;
  if (name == "bw") return MetricKind::Bandwidth;
  if (name.starts_with("lat.") || name.starts_with("clat.")) return MetricKind::Latency;
  return std::nullopt;
}

bool higher_is_better(std::string_view metric_name) noexcept {
  if (const PtsFigureInfo* f = find_pts_figure(metric_name)) return !f->lower_is_better;
  const auto kind = metric_kind_of(metric_name);
  return !kind || higher_is_better(*kind);
}

// One number format everywhere (message, failure body, system-out, console):
// reporting/quantity_format.hpp's verdict form.
std::string format_metric_value(MetricKind kind, double value) {
  switch (kind) {
    case MetricKind::Iops:
      return format_verdict_value(value, "");
    case MetricKind::Bandwidth:
      return format_verdict_value(value, "B/s");
    case MetricKind::Latency:
      return format_verdict_value(value, "ns");
    case MetricKind::Capacity:
      return format_verdict_value(value, "B");
    case MetricKind::Waf:
      return format_verdict_value(value, "") + "x";
    case MetricKind::Dwpd:
      return format_verdict_value(value, "") + " DWPD";
    case MetricKind::Percent: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f%%", value);
      return buf;
    }
  }
  return "";
}

namespace {
using K = MetricKind;
constexpr std::array<PtsFigureInfo, 18> kPtsFigures = {{
    {"wsat.iops", K::Iops, false, "WSAT: the saturated level (mean of the steady region)"},
    {"wsat.fob_iops", K::Iops, false,
     "WSAT: fresh-out-of-box IOPS (median of the first 5 samples)"},
    {"wsat.drop_pct", K::Percent, true, "WSAT: how far IOPS fell from FOB to the saturated level"},
    {"wsat.cliff_tgbw", K::Capacity, false, "WSAT: bytes written when IOPS fell off the cliff"},
    {"dirth.max_iops", K::Iops, false, "DIRTH: IOPS of the MaxIOPS point (within the ceiling)"},
    {"dirth.max_iops_lat", K::Latency, true, "DIRTH: average response time at the MaxIOPS point"},
    {"dirth.max_iops_p99999", K::Latency, true, "DIRTH: 99.999th percentile at the MaxIOPS point"},
    {"dirth.min_iops", K::Iops, false, "DIRTH: IOPS of the MinIOPS point (T1Q1)"},
    {"dirth.min_iops_lat", K::Latency, true, "DIRTH: average response time at the MinIOPS point"},
    {"xsr.seq_bw", K::Bandwidth, false, "XSR: settled throughput of access group 1 (sequential)"},
    {"xsr.rnd_bw", K::Bandwidth, false, "XSR: settled throughput of access group 2 (random)"},
    {"xsr.seq2_bw", K::Bandwidth, false, "XSR: settled throughput of access group 3 (sequential)"},
    {"xsr.recovery_rnd", K::Latency, true, "XSR: time to settle after the switch to random writes"},
    {"xsr.recovery_seq", K::Latency, true,
     "XSR: time to settle after the switch back to sequential"},
    {"hir.baseline_iops", K::Iops, false, "HIR: IOPS at saturation, before any wait"},
    {"hir.iops_shortest_wait", K::Iops, false, "HIR: burst IOPS with the shortest idle wait"},
    {"hir.iops_longest_wait", K::Iops, false, "HIR: burst IOPS with the longest idle wait"},
    {"hir.gain_pct", K::Percent, false, "HIR: best wait state's burst IOPS over the baseline"},
}};
}  // namespace

std::span<const PtsFigureInfo> pts_figures() noexcept {
  return kPtsFigures;
}

const PtsFigureInfo* find_pts_figure(std::string_view name) noexcept {
  for (const auto& f : kPtsFigures)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace storqual::reporting
