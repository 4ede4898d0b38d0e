// SPDX-License-Identifier: Apache-2.0
// Human-readable quantities, following fio's num2str() for the fio-like output.
#include "model/quantity_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace storqual::reporting {
namespace {

unsigned integer_digits(double v) {
  unsigned digits = 1;
  while (v >= 10) {
    v /= 10;
    ++digits;
  }
  return digits;
}

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
  auto render = [](double y) {
    int decimals = 0;
    if (y != 0) decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(y)))));
    return strip_zeros(format_fixed(y, decimals));
  };
  std::string text = render(v / scales[i]);
  if (text == "1000" && i + 1 < n) {  // 999.7 rounds up: print it in the next unit
    ++i;
    text = render(v / scales[i]);
  }
  return text + units[i];
}

}  // namespace

std::string format_fixed(double v, int decimals) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  if (n < 0) return {};
  if (static_cast<std::size_t>(n) < sizeof buf)
    return std::string(buf, static_cast<std::size_t>(n));
  std::string out(static_cast<std::size_t>(n) + 1, '\0');  // 1e300 has 301 digits
  std::snprintf(out.data(), out.size(), "%.*f", decimals, v);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string format_verdict_value(double value, std::string_view unit) {
  if (!std::isfinite(value)) return "-";
  if (unit == "IOPS" || unit.empty()) {
    static constexpr double s[] = {1, 1e3, 1e6, 1e9};
    static constexpr const char* u[] = {"", "k", "M", "G"};
    return three_digits(value, s, u, 4) + (unit.empty() ? "" : " IOPS");
  }
  if (unit == "B/s") {
    static constexpr double s[] = {1, 1e3, 1e6, 1e9, 1e12};
    static constexpr const char* u[] = {" B/s", " kB/s", " MB/s", " GB/s", " TB/s"};
    return three_digits(value, s, u, 5);
  }
  if (unit == "ns") {
    static constexpr double s[] = {1, 1e3, 1e6, 1e9};
    static constexpr const char* u[] = {" ns", " us", " ms", " s"};
    return three_digits(value, s, u, 4);
  }
  if (unit == "B") {
    static constexpr double s[] = {1, 1e3, 1e6, 1e9, 1e12, 1e15};
    static constexpr const char* u[] = {" B", " kB", " MB", " GB", " TB", " PB"};
    return three_digits(value, s, u, 6);
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return std::string(buf) + " " + std::string(unit);
}

std::string fio_num2str(double value, unsigned max_digits, unsigned base) {
  if (!std::isfinite(value) || value < 0) return "-";
  static constexpr const char* kDecimalPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  static constexpr const char* kBinaryPrefixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  const auto& prefixes = base == 1024 ? kBinaryPrefixes : kDecimalPrefixes;
  unsigned index = 0;
  double v = std::floor(value);
  bool scaled = false;
  double exact = value;
  while (index + 1 < 7 && integer_digits(v) > max_digits) {
    exact /= base;
    v = std::floor(exact);
    ++index;
    scaled = true;
  }
  if (!scaled) return format_fixed(v, 0) + prefixes[index];
  const int int_digits = static_cast<int>(integer_digits(v));
  const int decimals = static_cast<int>(max_digits) - int_digits - 1;
  if (decimals <= 0) return format_fixed(v, 0) + prefixes[index];
  // Truncate, as fio's integer arithmetic does, so 99.96k never becomes "100.0k".
  const double factor = std::pow(10.0, decimals);
  return format_fixed(std::floor(exact * factor) / factor, decimals) + prefixes[index];
}

std::string format_iops(double iops) {
  return fio_num2str(iops) + " IOPS";
}

std::string format_rate_mb(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return "-";
  return format_fixed(bytes_per_s / 1e6, 1) + " MB/s";
}

std::string format_rate_mib(double bytes_per_s) {
  if (!std::isfinite(bytes_per_s)) return "-";
  return format_fixed(bytes_per_s / (1024.0 * 1024.0), 1) + " MiB/s";
}

std::string format_latency(double ns) {
  if (!std::isfinite(ns)) return "-";
  if (ns < 1e3) return format_fixed(ns, 0) + " ns";
  if (ns < 1e6) return format_fixed(ns / 1e3, 1) + " us";
  if (ns < 1e9) return format_fixed(ns / 1e6, 2) + " ms";
  return format_fixed(ns / 1e9, 2) + " s";
}

std::string format_bytes_iec(double bytes) {
  if (!std::isfinite(bytes)) return "-";
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  unsigned i = 0;
  while (bytes >= 1024 && i + 1 < 6) {
    bytes /= 1024;
    ++i;
  }
  return format_fixed(bytes, i == 0 ? 0 : 1) + " " + kUnits[i];
}

std::string format_bytes_decimal(double bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  unsigned i = 0;
  while (bytes >= 1000 && i + 1 < 6) {
    bytes /= 1000;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", bytes, kUnits[i]);
  return buf;
}

std::string format_metric_value(double value, std::string_view unit) {
  if (unit == "IOPS") return format_iops(value);
  if (unit == "B/s") return format_rate_mb(value);
  if (unit == "ns") return format_latency(value);
  if (unit == "B" && std::isfinite(value)) return format_bytes_decimal(value);
  if (unit == "%" && std::isfinite(value)) return format_fixed(value, 1) + "%";  // PTS figures
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  std::string out = buf;
  if (!unit.empty()) {
    out += ' ';
    out += unit;
  }
  return out;
}

std::string format_percent_signed(double pct) {
  if (!std::isfinite(pct)) return "-";
  // printf's "%+.1f%%": a sign always, "-0.0%" for a negative that rounds to zero.
  return (std::signbit(pct) ? "" : "+") + format_fixed(pct, 1) + "%";
}

std::string format_seconds_fixed(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  return format_fixed(seconds, 3);
}

std::string count_of(std::size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string join_text(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

}  // namespace storqual::reporting
