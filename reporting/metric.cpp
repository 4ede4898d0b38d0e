// SPDX-License-Identifier: Apache-2.0
// The metric definitions (see metric.hpp).
#include "reporting/metric.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace storqual::reporting {
namespace {

std::string strip_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// Three significant digits, the largest unit that keeps the number at or above 1.
std::string three_digits(double v, const double* scales, const char* const* units, int n) {
  int i = 0;
  while (i + 1 < n && std::fabs(v) >= scales[i + 1]) ++i;
  double x = v / scales[i];
  auto render = [](double y) {
    int decimals = 0;
    if (y != 0) decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(y)))));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, y);
    return strip_zeros(buf);
  };
  std::string text = render(x);
  if (text == "1000" && i + 1 < n) {  // 999.7 rounds up: print it in the next unit
    ++i;
    text = render(v / scales[i]);
  }
  return text + units[i];
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
  }
  return "";
}

std::optional<MetricKind> metric_kind_of(std::string_view name) noexcept {
  if (name == "capacity") return MetricKind::Capacity;
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

std::string format_metric_value(MetricKind kind, double value) {
  switch (kind) {
    case MetricKind::Iops: {
      static constexpr double s[] = {1, 1e3, 1e6, 1e9};
      static constexpr const char* u[] = {"", "k", "M", "G"};
      return three_digits(value, s, u, 4);
    }
    case MetricKind::Bandwidth: {
      static constexpr double s[] = {1, 1e3, 1e6, 1e9, 1e12};
      static constexpr const char* u[] = {" B/s", " kB/s", " MB/s", " GB/s", " TB/s"};
      return three_digits(value, s, u, 5);
    }
    case MetricKind::Latency: {
      static constexpr double s[] = {1, 1e3, 1e6, 1e9};
      static constexpr const char* u[] = {" ns", " us", " ms", " s"};
      return three_digits(value, s, u, 4);
    }
    case MetricKind::Capacity: {
      static constexpr double s[] = {1, 1e3, 1e6, 1e9, 1e12, 1e15};
      static constexpr const char* u[] = {" B", " kB", " MB", " GB", " TB", " PB"};
      return three_digits(value, s, u, 6);
    }
  }
  return "";
}

}  // namespace storqual::reporting
