// SPDX-License-Identifier: Apache-2.0
// The metric definitions (see metric.hpp).
#include "model/metric.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/quantity_format.hpp"

namespace storqual::reporting {
namespace {
using K = MetricKind;
constexpr std::size_t kMaxFigures = 256;  // reserved, so that adding never moves a row

// The figures of the whole run; every method adds its own (add_figure_rows).
constexpr FigureInfo kRunFigures[] = {
    {"waf", K::Waf, true, "run", "write amplification over the whole run (media / host writes)"},
    {"endurance.dwpd", K::Dwpd, false, "run",
     "drive writes per day over the warranty, projected from the run's wear"},
};

// Every named figure, in registration order (a vector that never shrinks: the pointers
// find_figure returns stay valid only while no row is added, which happens once at start).
std::vector<FigureInfo>& figures() {
  static std::vector<FigureInfo> all = [] {
    std::vector<FigureInfo> v;
    v.reserve(kMaxFigures);
    return v;
  }();
  return all;
}
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
  for (std::size_t i = 0; i < figures().size(); ++i)
    out += (i == 0 ? " " : ", ") + std::string(figures()[i].name);
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
  return figures();
}

std::span<const FigureInfo> run_figure_rows() noexcept {
  return kRunFigures;
}

void add_figure_rows(std::span<const FigureInfo> rows) {
  for (const FigureInfo& row : rows) {
    if (find_figure(row.name)) continue;
    if (figures().size() == kMaxFigures) std::abort();  // a pointer from find_figure would move
    figures().push_back(row);
  }
}

const FigureInfo* find_figure(std::string_view name) noexcept {
  for (const auto& f : figures())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace storqual::reporting
