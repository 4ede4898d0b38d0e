// SPDX-License-Identifier: Apache-2.0
// Sample counts of latency percentiles (see tail_samples.hpp).
#include "runner/measure/tail_samples.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "runner/base/units.hpp"

namespace storqual::runner {
namespace {

std::string percentile_text(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", p);
  return buf;
}

std::string available_percentiles() {
  std::string out;
  for (double p : kClaimablePercentiles) {
    if (!out.empty()) out += ", ";
    out += "p" + percentile_text(p);
  }
  return out;
}

}  // namespace

std::optional<double> parse_percentile_stat(std::string_view stat, std::string_view context) {
  if (stat == "mean") return std::nullopt;
  if (stat.size() < 2 || stat.front() != 'p')
    throw UnitError("unknown statistic '" + std::string(stat) + "' in '" + std::string(context) +
                    "' (expected mean or pNN such as p99 or p99.9)");
  double p = 0;
  std::string_view digits = stat.substr(1);
  auto [ptr, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), p, std::chars_format::fixed);
  if (ec != std::errc() || ptr != digits.data() + digits.size())
    throw UnitError("unknown statistic '" + std::string(stat) + "' in '" + std::string(context) +
                    "' (expected mean or pNN such as p99 or p99.9)");
  for (double known : kClaimablePercentiles)
    if (std::fabs(known - p) < 1e-9) return known;
  throw UnitError("percentile " + std::string(stat) +
                  " is not reported (available: " + available_percentiles() + ")");
}

std::uint64_t samples_needed(double p) noexcept {
  if (!(p > 0) || !(p < 100)) return kMinSamplesBeyond;
  // n * (100 - p) / 100 >= 10. 99.9999 is not exact in binary: a quotient within a billionth of
  // an integer is that integer (10^7, not 10^7 + 1).
  const double n = static_cast<double>(kMinSamplesBeyond) * 100.0 / (100.0 - p);
  const double nearest = std::round(n);
  if (std::fabs(n - nearest) <= 1e-9 * n) return static_cast<std::uint64_t>(nearest);
  return static_cast<std::uint64_t>(std::ceil(n));
}

std::vector<double> reported_percentiles(std::uint64_t n) {
  std::vector<double> out(kFioPercentiles.begin(), kFioPercentiles.end());
  for (double p : kExtendedPercentiles)
    if (percentile_supported(p, n)) out.push_back(p);
  return out;
}

namespace {

std::string duration_text(double s) {
  char buf[64];
  if (s < 120)
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  else if (s < 2 * 3600)
    std::snprintf(buf, sizeof buf, "%.3g min", s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.3g h", s / 3600);
  return buf;
}

}  // namespace

std::string describe_shortfall(double p, std::uint64_t have, double iops) {
  const std::uint64_t need = samples_needed(p);
  char pct[32];
  std::snprintf(pct, sizeof pct, "p%g", p);
  std::string out = std::string(pct) + " needs " + std::to_string(need) + " I/Os (" +
                    std::to_string(kMinSamplesBeyond) + " beyond it), " + std::to_string(have) +
                    " measured";
  if (iops > 0)
    out += "; at the measured " + std::to_string(static_cast<std::uint64_t>(std::llround(iops))) +
           " IOPS that is a runtime of " + duration_text(static_cast<double>(need) / iops);
  return out;
}

}  // namespace storqual::runner
