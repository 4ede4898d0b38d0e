// SPDX-License-Identifier: Apache-2.0
// The metric definitions (see metric.hpp).
#include "reporting/metric.hpp"

#include <algorithm>
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
  }
  return "";
}

std::optional<MetricKind> metric_kind_of(std::string_view name) noexcept {
  if (name == "capacity") return MetricKind::Capacity;
  if (name == "waf") return MetricKind::Waf;
  if (name == "endurance.dwpd") return MetricKind::Dwpd;
  if (name == "sustained.bw") return MetricKind::Bandwidth;
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
  }
  return "";
}

}  // namespace storqual::reporting
