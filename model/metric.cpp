// SPDX-License-Identifier: Apache-2.0
// The metric definitions (see metric.hpp).
#include "model/metric.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "model/quantity_format.hpp"

namespace storqual::reporting {
namespace {
using K = MetricKind;
// Every named figure. The SNIA PTS ones: runner/methods/pts_tests.hpp measures them, docs/pts.md
// defines them.
constexpr std::array<FigureInfo, 23> kFigures = {{
    {"sustained.bw", K::Bandwidth, false, "sustained-write",
     "write bandwidth after the cache (mean after the drop), sum over {jobs}",
     MetricDirection::Write},
    {"sustained.initial_bw", K::Bandwidth, false, "sustained-write",
     "write bandwidth before any drop (median of the first intervals: the burst rate), sum over "
     "{jobs}",
     MetricDirection::Write},
    {"capacity", K::Capacity, false, "capacity",
     "bytes below the first sample that did not read back its own data"},
    {"waf", K::Waf, true, "run", "write amplification over the whole run (media / host writes)"},
    {"endurance.dwpd", K::Dwpd, false, "run",
     "drive writes per day over the warranty, projected from the run's wear"},
    {"wsat.iops", K::Iops, false, "wsat", "WSAT: the saturated level (mean of the steady region)"},
    {"wsat.fob_iops", K::Iops, false, "wsat",
     "WSAT: fresh-out-of-box IOPS (median of the first 5 samples)"},
    {"wsat.drop_pct", K::Percent, true, "wsat",
     "WSAT: how far IOPS fell from FOB to the saturated level"},
    {"wsat.cliff_tgbw", K::Capacity, false, "wsat",
     "WSAT: bytes written when IOPS fell off the cliff"},
    {"dirth.max_iops", K::Iops, false, "dirth",
     "DIRTH: IOPS of the MaxIOPS point (within the ceiling)"},
    {"dirth.max_iops_lat", K::Latency, true, "dirth",
     "DIRTH: average response time at the MaxIOPS point"},
    {"dirth.max_iops_p99999", K::Latency, true, "dirth",
     "DIRTH: 99.999th percentile at the MaxIOPS point"},
    {"dirth.min_iops", K::Iops, false, "dirth", "DIRTH: IOPS of the MinIOPS point (T1Q1)"},
    {"dirth.min_iops_lat", K::Latency, true, "dirth",
     "DIRTH: average response time at the MinIOPS point"},
    {"xsr.seq_bw", K::Bandwidth, false, "xsr",
     "XSR: settled throughput of access group 1 (sequential)"},
    {"xsr.rnd_bw", K::Bandwidth, false, "xsr",
     "XSR: settled throughput of access group 2 (random)"},
    {"xsr.seq2_bw", K::Bandwidth, false, "xsr",
     "XSR: settled throughput of access group 3 (sequential)"},
    {"xsr.recovery_rnd", K::Latency, true, "xsr",
     "XSR: time to settle after the switch to random writes"},
    {"xsr.recovery_seq", K::Latency, true, "xsr",
     "XSR: time to settle after the switch back to sequential"},
    {"hir.baseline_iops", K::Iops, false, "hir", "HIR: IOPS at saturation, before any wait"},
    {"hir.iops_shortest_wait", K::Iops, false, "hir",
     "HIR: burst IOPS with the shortest idle wait"},
    {"hir.iops_longest_wait", K::Iops, false, "hir", "HIR: burst IOPS with the longest idle wait"},
    {"hir.gain_pct", K::Percent, false, "hir",
     "HIR: best wait state's burst IOPS over the baseline"},
}};
}  // namespace

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

std::optional<MetricName> parse_metric_name(std::string_view name) noexcept {
  MetricName m;
  if (const FigureInfo* f = find_figure(name)) {
    m.kind = f->kind;
    m.direction = f->direction;
    m.figure = f;
    return m;
  }
  if (name.starts_with("read.")) {
    m.direction = MetricDirection::Read;
    name.remove_prefix(5);
  } else if (name.starts_with("write.")) {
    m.direction = MetricDirection::Write;
    name.remove_prefix(6);
  }
  if (name == "iops") return m;
  if (name == "bw") {
    m.kind = MetricKind::Bandwidth;
    return m;
  }
  m.kind = MetricKind::Latency;
  if (name.starts_with("lat.")) {
    m.stat = name.substr(4);
    return m;
  }
  if (name.starts_with("clat.")) {
    m.latency = LatencyKind::Clat;
    m.stat = name.substr(5);
    return m;
  }
  return std::nullopt;
}

void add_figure(std::vector<Figure>& out, std::string_view name, double value) {
  const FigureInfo* info = find_figure(name);
  out.push_back({std::string(name), value, info ? metric_unit(info->kind) : ""});
}

std::string metric_forms() {
  std::string out =
      "iops, bw, lat.mean, lat.pNN, clat.mean or clat.pNN, optionally prefixed with read. or "
      "write.; or a figure of a method or of the run:";
  for (std::size_t i = 0; i < kFigures.size(); ++i)
    out += (i == 0 ? " " : ", ") + std::string(kFigures[i].name);
  return out;
}

std::optional<MetricKind> metric_kind_of(std::string_view name) noexcept {
  if (const auto m = parse_metric_name(name)) return m->kind;
  return std::nullopt;
}

bool higher_is_better(std::string_view metric_name) noexcept {
  if (const FigureInfo* f = find_figure(metric_name)) return !f->lower_is_better;
  const auto kind = metric_kind_of(metric_name);
  return !kind || higher_is_better(*kind);
}

// One number format everywhere (message, failure body, system-out, console):
// model/quantity_format.hpp's verdict form.
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

std::span<const FigureInfo> figure_table() noexcept {
  return kFigures;
}

const FigureInfo* find_figure(std::string_view name) noexcept {
  for (const auto& f : kFigures)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace storqual::reporting
