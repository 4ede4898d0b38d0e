// SPDX-License-Identifier: Apache-2.0
// Write amplification and endurance over a run, from the NVMe health snapshots before and after
// (docs/measurement.md, "Write amplification and endurance").
//
//   WAF   = (C0h physical media units written, after - before) / (SMART data units written,
//           after - before, x 512 000 bytes). Both in bytes. Needs the OCP C0h log and host writes.
//   DWPD  = projected lifetime writes / (capacity x 365.25 x warranty years), where the projected
//           lifetime writes are host bytes per percent of wear x 100: from the run when the
//           percentage used moved during it, else from the drive's lifetime counters (data units
//           written so far / percentage used), and no projection when the drive reports 0% used.
#pragma once

#include <optional>

#include "devices/health.hpp"
#include "model/result.hpp"

namespace storqual::runner {

inline constexpr double kDefaultWarrantyYears = 5;  // the usual datacenter warranty

[[nodiscard]] reporting::WearReport assess_wear(const devices::HealthSnapshot& before,
                                                const devices::HealthSnapshot& after,
                                                double capacity_bytes, double warranty_years);

}  // namespace storqual::runner
