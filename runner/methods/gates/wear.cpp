// SPDX-License-Identifier: Apache-2.0
// Write amplification and endurance projection (see wear.hpp).
#include "runner/methods/gates/wear.hpp"

#include <cstdio>

namespace storqual::runner {
namespace {

constexpr double kBytesPerDataUnit = 512.0 * 1000;

double as_double(const devices::Counter128& c) {
  return static_cast<double>(c.high) * 18446744073709551616.0 + static_cast<double>(c.low);
}

}  // namespace

reporting::WearReport assess_wear(const devices::HealthSnapshot& before,
                                  const devices::HealthSnapshot& after, double capacity_bytes,
                                  double warranty_years) {
  reporting::WearReport w;
  w.warranty_years = warranty_years;
  const auto& a = before.smart;
  const auto& b = after.smart;
  if (b.data_units_written >= a.data_units_written)
    w.host_written_bytes =
        as_double(devices::minus(b.data_units_written, a.data_units_written)) * kBytesPerDataUnit;
  if (before.ocp && after.ocp &&
      after.ocp->physical_media_units_written >= before.ocp->physical_media_units_written) {
    w.media_written_bytes = as_double(devices::minus(after.ocp->physical_media_units_written,
                                                     before.ocp->physical_media_units_written));
    if (w.host_written_bytes > 0) w.waf = *w.media_written_bytes / w.host_written_bytes;
  }
  w.percentage_used_before = a.percentage_used;
  w.percentage_used_after = b.percentage_used;
  char buf[200];
  if (b.percentage_used > a.percentage_used && w.host_written_bytes > 0) {
    const unsigned moved = b.percentage_used - a.percentage_used;
    w.projected_write_bytes = w.host_written_bytes * 100.0 / moved;
    std::snprintf(buf, sizeof buf,
                  "the run: %.4g bytes written while percentage used went %u%% -> %u%%",
                  w.host_written_bytes, a.percentage_used, b.percentage_used);
    w.basis = buf;
  } else if (b.percentage_used > 0) {
    const double lifetime = as_double(b.data_units_written) * kBytesPerDataUnit;
    w.projected_write_bytes = lifetime * 100.0 / b.percentage_used;
    std::snprintf(buf, sizeof buf,
                  "the drive's lifetime counters (percentage used did not move during the run): "
                  "%.4g bytes written at %u%% used",
                  lifetime, b.percentage_used);
    w.basis = buf;
  } else {
    w.basis = "no projection: the drive reports 0% used and it did not move during the run";
  }
  if (w.projected_write_bytes && capacity_bytes > 0 && warranty_years > 0)
    w.dwpd = *w.projected_write_bytes / (capacity_bytes * 365.25 * warranty_years);
  return w;
}

}  // namespace storqual::runner
